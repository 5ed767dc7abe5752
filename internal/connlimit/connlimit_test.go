package connlimit

import (
	"net"
	"testing"
	"time"
)

// TestCapPerAddress: connections over the cap close on arrival, and a
// closed connection frees its place.
func TestCapPerAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, 2)
	refused := make(chan string, 10)
	l.Refused = func(addr string) { refused <- addr }
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	defer l.Close()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	dial()
	dial()
	<-accepted
	second := <-accepted
	third := dial()
	if addr := <-refused; addr != "127.0.0.1" {
		t.Fatalf("refused %q", addr)
	}
	third.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := third.Read(make([]byte, 1)); err == nil {
		t.Fatal("the third connection was not closed")
	}
	if got := l.Open("127.0.0.1"); got != 2 {
		t.Fatalf("Open = %d, want 2", got)
	}
	second.Close()
	dial()
	<-accepted
	if got := l.Open("127.0.0.1"); got != 2 {
		t.Fatalf("after one closed and one more came, Open = %d, want 2", got)
	}
}

// TestTotalCap: all addresses together hold at most Total connections.
func TestTotalCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := New(ln, 10)
	l.Total = 2
	defer l.Close()
	accepted := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	for _, ip := range []byte{1, 2, 3} {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, ip)}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if ip < 3 {
			<-accepted
			continue
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatal("a third address got a connection over the total cap")
		}
	}
}
