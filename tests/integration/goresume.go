// SPDX-License-Identifier: ISC
// goresume: Go's crypto/tls client with a session cache, the way Go
// programs resume: it connects n times to addr at one TLS version with
// one ClientSessionCache, sends a request and reads the answer to its
// end (a TLS 1.3 ticket comes after the handshake), and prints one line
// a connection: "<i> resumed=<true|false> version=<hex>".  Standard
// library only.
//
//	go run goresume.go -addr 127.0.0.1:8443 -tls 1.2 -n 2
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

func main() {
	addr := flag.String("addr", "", "host:port")
	ver := flag.String("tls", "1.3", "1.2 or 1.3")
	n := flag.Int("n", 2, "connections")
	flag.Parse()
	v := uint16(tls.VersionTLS13)
	if *ver == "1.2" {
		v = tls.VersionTLS12
	}
	cfg := &tls.Config{
		InsecureSkipVerify: true, // the tests' certificates are throw-away
		ServerName:         "localhost",
		MinVersion:         v,
		MaxVersion:         v,
		ClientSessionCache: tls.NewLRUClientSessionCache(8),
	}
	for i := 0; i < *n; i++ {
		c, err := tls.Dial("tcp", *addr, cfg)
		if err != nil {
			fmt.Printf("%d error=%v\n", i, err)
			os.Exit(1)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		c.Write([]byte("GET / HTTP/1.1\r\nHost: go\r\nConnection: close\r\n\r\n"))
		io.Copy(io.Discard, c)
		st := c.ConnectionState()
		fmt.Printf("%d resumed=%v version=%x\n", i, st.DidResume, st.Version)
		c.Close()
	}
}
