// Command replayd is a WAIS server that answers from recorded
// conversations with freeWAIS-sf (schemes/wais/testdata/transcripts), for
// driving the fetch binary end to end where no WAIS server can be
// installed. Each recorded request's exact bytes map to the recorded
// answer; an init (PDU 20) of any content gets the recorded init
// response. A request that no recording holds ends the connection.
//
//	replayd -listen 127.0.0.1:PORT -dir schemes/wais/testdata/transcripts
package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

const headerLen = 25

type transcript struct {
	Messages []struct {
		Dir string `json:"dir"`
		Hex string `json:"hex"`
	} `json:"messages"`
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	dir := flag.String("dir", "testdata/transcripts", "folder of wais-*.json recordings")
	flag.Parse()
	answers, initReply, err := load(*dir)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("replaying %d recorded requests on %s", len(answers), ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			log.Fatal(err)
		}
		go serve(c, answers, initReply)
	}
}

// load maps each recorded client message (without its header) to the
// server message that followed it.
func load(dir string) (map[string][]byte, []byte, error) {
	files, err := filepath.Glob(filepath.Join(dir, "wais-*.json"))
	if err != nil || len(files) == 0 {
		return nil, nil, fmt.Errorf("no recordings in %s", dir)
	}
	answers := map[string][]byte{}
	var initReply []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		var t transcript
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, nil, fmt.Errorf("%s: %v", f, err)
		}
		for i := 0; i+1 < len(t.Messages); i++ {
			if t.Messages[i].Dir != "c2s" || t.Messages[i+1].Dir != "s2c" {
				continue
			}
			q, err1 := hex.DecodeString(t.Messages[i].Hex)
			a, err2 := hex.DecodeString(t.Messages[i+1].Hex)
			if err := errors.Join(err1, err2); err != nil || len(q) < headerLen+3 {
				return nil, nil, fmt.Errorf("%s: message %d: %v", f, i, err)
			}
			if q[headerLen+2] == 20 {
				initReply = a
				continue
			}
			answers[string(q[headerLen:])] = a
		}
	}
	if initReply == nil {
		return nil, nil, errors.New("no recorded init response")
	}
	return answers, initReply, nil
}

func serve(c net.Conn, answers map[string][]byte, initReply []byte) {
	defer c.Close()
	for {
		c.SetDeadline(time.Now().Add(time.Minute))
		var h [headerLen]byte
		if _, err := io.ReadFull(c, h[:]); err != nil {
			return
		}
		n, err := strconv.Atoi(string(h[:10]))
		if err != nil || n < 3 || n > 1<<20 {
			log.Printf("%s: bad header %q", c.RemoteAddr(), h[:])
			return
		}
		q := make([]byte, n)
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		a := answers[string(q)]
		if q[2] == 20 {
			a = initReply
		}
		if a == nil {
			log.Printf("%s: no recording answers %x", c.RemoteAddr(), q)
			return
		}
		if _, err := c.Write(a); err != nil {
			return
		}
	}
}
