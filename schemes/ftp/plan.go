package ftp

import (
	"strconv"

	"github.com/rfc1738/fetch/fetch"
)

// Plan returns the commands Fetch sends for req on a new control
// connection, passwords as "****": the login, PWD, one CWD per <cwd>
// segment, and then NLST; or TYPE I, SIZE and MDTM for req.Head; or TYPE,
// SIZE in TYPE I, MDTM for req.IfModifiedSince or req.WantModTime, REST for req.Offset, and
// RETR. The data connection's command (EPSV, or EPRT in
// active mode) is listed before the transfer command; a server without it
// is sent PASV or PORT instead.
func (h *Handler) Plan(req *fetch.Request) ([]string, error) {
	j, err := newJob(req)
	if err != nil {
		return nil, err
	}
	lg := h.credentials(req)
	var lines []string
	if req.URL.Scheme == "ftp" && h.ExplicitTLS {
		lines = append(lines, "AUTH TLS")
	}
	lines = append(lines, "USER "+lg.user, "PASS ****")
	if req.URL.Scheme == "ftps" || h.ExplicitTLS {
		lines = append(lines, "PBSZ 0", "PROT P")
	}
	lines = append(lines, "PWD")
	for _, d := range j.cwds {
		lines = append(lines, "CWD "+d)
	}
	data := "EPSV"
	if h.Active {
		data = "EPRT |1|<local address>|<port>|"
	}
	if j.list {
		if req.Head {
			return lines, nil
		}
		line := "NLST"
		if j.name != "" {
			line += " " + j.name
		}
		return append(lines, "TYPE A", data, line), nil
	}
	if req.Head {
		return append(lines, "TYPE I", "SIZE "+j.name, "MDTM "+j.name), nil
	}
	lines = append(lines, "TYPE "+j.typ)
	if j.typ == "I" {
		lines = append(lines, "SIZE "+j.name)
	}
	if !req.IfModifiedSince.IsZero() || req.WantModTime {
		lines = append(lines, "MDTM "+j.name)
	}
	lines = append(lines, data)
	if req.Offset > 0 {
		lines = append(lines, "REST "+strconv.FormatInt(req.Offset, 10))
	}
	return append(lines, "RETR "+j.name), nil
}
