package url

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time of the calling thread (the caller locks
// it), which time spent descheduled on a loaded machine does not inflate.
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	return time.Duration(ts.Nano())
}
