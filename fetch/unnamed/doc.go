// Package unnamed writes files that have no name until they are complete:
// on Linux a file made in its folder with O_TMPFILE gets its name only
// when Link gives it one, so that a transfer that fails, or a process
// that is killed, leaves nothing behind for anyone to take for a complete
// file, and no temporary name to clean up. It costs the folder one entry
// made, where a named temporary file costs one made, renamed and removed.
//
// The file is a bare descriptor, written with Write and closed with Close:
// an *os.File would cost each file four fcntl calls and a failed
// epoll_ctl when opened (the runtime tries to poll it), which for small
// files is a sizeable share of their cost. Where Create cannot make an
// unnamed file (another system, a file system without O_TMPFILE, /proc
// not mounted) it reports so, and the caller uses a named temporary file.
package unnamed
