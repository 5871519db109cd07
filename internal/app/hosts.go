package app

import (
	"net"
	"net/url"
	"os"
)

// publicHost is the host of HONE_PUBLIC_URL, or "".
func publicHost(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil {
		return ""
	}
	return u.Host
}

// listenHosts are the names and addresses a server listening on addr (as
// configured) at the address ln reaches: the configured host, the listening
// address, and for every interface (an unspecified address) each
// interface's address and the machine's name.
func listenHosts(addr string, ln net.Addr) []string {
	var out []string
	if host, _, err := net.SplitHostPort(addr); err == nil && host != "" {
		out = append(out, host)
	}
	tcp, ok := ln.(*net.TCPAddr)
	if !ok {
		return out
	}
	if !tcp.IP.IsUnspecified() {
		return append(out, tcp.IP.String())
	}
	if name, err := os.Hostname(); err == nil {
		out = append(out, name)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP.String())
		}
	}
	return out
}
