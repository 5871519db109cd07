package server

import (
	"net"
	"strings"
	"sync"

	"github.com/honehq/hone"
)

// Hosts are the names a server without an API token answers to: loopback
// names and addresses always, and those added (the public URL's host, the
// addresses it listens on). A page of another site that has its own name
// resolve to this machine (DNS rebinding) sends that name as the Host, and
// is refused. A nil *Hosts allows every host, as hone does when a token
// guards it.
type Hosts struct {
	mu    sync.RWMutex
	names map[string]bool
}

// NewHosts returns the loopback names and addresses and the given hosts.
func NewHosts(hosts ...string) *Hosts {
	h := &Hosts{names: map[string]bool{}}
	h.Add(hosts...)
	return h
}

// Add allows more hosts, each a name or an address with or without a port.
func (h *Hosts) Add(hosts ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, host := range hosts {
		if host = hostName(host); host != "" {
			h.names[host] = true
		}
	}
}

// Allow reports whether a request with the Host header value host is
// answered.
func (h *Hosts) Allow(host string) bool {
	if h == nil {
		return true
	}
	name := hostName(host)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.names[name]
}

// hostName is host without its port, brackets or a final dot, in lower case.
func hostName(host string) string {
	host = strings.TrimSpace(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	return strings.ToLower(host)
}

// errHost refuses a request for a host hone does not answer to.
func errHost(host string) error {
	return hone.Errorf(hone.EFORBIDDEN, "hone does not answer to the host %q: without HONE_API_TOKEN it answers only to localhost, "+
		"the addresses it listens on and the host of HONE_PUBLIC_URL. Set HONE_PUBLIC_URL to the URL you reach hone at", host)
}
