package etcdtest

import (
	"io"
	"net"
	"sync"
)

// Proxy forwards TCP connections to a target, and can be paused: Pause
// drops every connection through it and holds new ones, unanswered, until
// Resume, as a network partition between a client and a server does.
type Proxy struct {
	Addr   string // host:port to connect to instead of the target
	target string
	ln     net.Listener

	mu      sync.Mutex
	paused  bool
	resume  chan struct{} // closed by Resume
	conns   map[net.Conn]bool
	closed  bool
	pending sync.WaitGroup // the goroutines of accepted connections
}

// NewProxy listens on a free loopback port and forwards to target
// (host:port) until Close.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, conns: map[net.Conn]bool{}, resume: make(chan struct{})}
	go p.accept()
	return p, nil
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.pending.Add(1)
		go func() {
			defer p.pending.Done()
			p.serve(c)
		}()
	}
}

// track records c; it returns false once the proxy is closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = true
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// serve waits while the proxy is paused, then copies c to and from the
// target until either side closes.
func (p *Proxy) serve(c net.Conn) {
	defer p.untrack(c)
	p.mu.Lock()
	paused, resume := p.paused, p.resume
	p.mu.Unlock()
	if paused {
		<-resume
	}
	t, err := net.Dial("tcp", p.target)
	if err != nil {
		return
	}
	if !p.track(t) {
		t.Close()
		return
	}
	defer p.untrack(t)
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(t, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, t); done <- struct{}{} }()
	<-done
}

// Pause drops the connections through the proxy and holds new ones until
// Resume.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		return
	}
	p.paused = true
	for c := range p.conns {
		c.Close()
	}
}

// Resume lets held and new connections through again.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused {
		return
	}
	p.paused = false
	close(p.resume)
	p.resume = make(chan struct{})
}

// Close stops listening, drops every connection and waits for their
// goroutines.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.Resume()
	p.pending.Wait()
}
