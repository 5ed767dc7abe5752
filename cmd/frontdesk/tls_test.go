package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"frontdesk/config"
	"frontdesk/internal/clock"
)

// testCA issues certificates for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "frontdesk test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue writes a certificate for names (addresses or hostnames) and its
// key to certFile and keyFile.
func (ca *testCA) issue(t *testing.T, serial int64, certFile, keyFile string, names ...string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// noRedirects is a client that shows redirects instead of following them.
func noRedirects(roots *x509.CertPool, serverName string) *http.Client {
	return &http.Client{
		Timeout:       30 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// TestTLSWithCertificateFiles serves HTTPS from the owner's files: HSTS on
// HTTPS answers, plain HTTP redirected to the same path on HTTPS, and a
// renewed certificate served without a restart.
func TestTLSWithCertificateFiles(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	ca.issue(t, 2, certFile, keyFile, "127.0.0.1", "localhost")
	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.TLS = config.TLS{Mode: "files", CertFile: certFile, KeyFile: keyFile, HTTPAddr: "127.0.0.1:0", HSTSSeconds: 600}
	m, _ := launch(t, c, "127.0.0.1:0", clock.NewFixed(testNow))
	if !strings.HasPrefix(m.URL, "https://") || m.PlainURL == "" {
		t.Fatalf("URL = %q, plain URL = %q; want https and a plain listener", m.URL, m.PlainURL)
	}
	client := noRedirects(ca.pool(), "")
	resp, err := client.Get(m.URL + "/policy")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.Header.Get("Strict-Transport-Security"), "max-age=600"; resp.StatusCode != 200 || got != want {
		t.Fatalf("GET /policy over HTTPS = %d with HSTS %q, want 200 with %q", resp.StatusCode, got, want)
	}
	if resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 2 {
		t.Fatalf("served certificate serial %v, want 2", resp.TLS.PeerCertificates[0].SerialNumber)
	}

	resp, err = client.Get(m.PlainURL + "/book/riverside?roomtype=double")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, httpsPort, _ := net.SplitHostPort(strings.TrimPrefix(m.URL, "https://"))
	if want := "https://127.0.0.1:" + httpsPort + "/book/riverside?roomtype=double"; resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != want {
		t.Fatalf("plain GET = %d to %q, want 301 to %q", resp.StatusCode, resp.Header.Get("Location"), want)
	}
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Fatal("a plain-HTTP answer carries HSTS, which browsers ignore there")
	}
	req, _ := http.NewRequest(http.MethodGet, m.PlainURL+"/", nil)
	req.Host = "evil.example"
	if resp, err = client.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("redirect for a foreign Host = %d, want 403", resp.StatusCode)
	}
	if resp, err = client.Get(m.PlainURL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("plain /healthz = %v, %v; want 200 for orchestrators", resp, err)
	}
	resp.Body.Close()

	// A renewal written by another tool is served on the next handshake.
	time.Sleep(10 * time.Millisecond) // a later modification time
	ca.issue(t, 3, certFile, keyFile, "127.0.0.1", "localhost")
	client = noRedirects(ca.pool(), "")
	if resp, err = client.Get(m.URL + "/healthz"); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.TLS.PeerCertificates[0].SerialNumber.Int64() != 3 {
		t.Fatalf("after the renewal the server serves serial %v, want 3", resp.TLS.PeerCertificates[0].SerialNumber)
	}
}

func freePort(t *testing.T) int { return freePorts(t, 1)[0] }

// freePorts returns n different free ports of 127.0.0.1: each is held
// open until all are chosen, or the kernel could hand out one twice.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports[i] = ln.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// startProcess runs a test server binary until the test ends.
func startProcess(t *testing.T, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	logFile, _ := os.Create(filepath.Join(t.TempDir(), filepath.Base(name)+".log"))
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("%s log:\n%s", filepath.Base(name), b)
		}
	})
}

// TestTLSWithACME obtains a certificate from a local ACME server
// (Let's Encrypt's pebble, with its DNS helper answering 127.0.0.1 for
// every name) over HTTP-01 on the plain listener, keeps it in the data
// directory's cache and serves it with HSTS.
func TestTLSWithACME(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("FRONTDESK_TEST_PEBBLE")
	if bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("FRONTDESK_TEST_PEBBLE is not set; .ci/run installs pebble there")
		}
		t.Skip("FRONTDESK_TEST_PEBBLE is not set: install pebble and pebble-challtestsrv (github.com/letsencrypt/pebble/v2/cmd/...) there to run the ACME test")
	}
	const host = "shop.frontdesk.test"
	dir := t.TempDir()
	ca := newTestCA(t)
	wfeCert, wfeKey := filepath.Join(dir, "wfe.pem"), filepath.Join(dir, "wfe.key")
	ca.issue(t, 10, wfeCert, wfeKey, "127.0.0.1", "localhost")
	caFile := filepath.Join(dir, "ca.pem")
	os.WriteFile(caFile, ca.pem, 0o600)

	ports := freePorts(t, 6)
	dns, wfe, mgmt, challenge := ports[0], ports[1], ports[2], ports[3]
	startProcess(t, nil, filepath.Join(bin, "pebble-challtestsrv"), "-defaultIPv4", "127.0.0.1", "-defaultIPv6", "",
		"-dnsserver", fmt.Sprintf("127.0.0.1:%d", dns), "-http01", "", "-https01", "", "-tlsalpn01", "", "-doh", "",
		"-management", fmt.Sprintf("127.0.0.1:%d", ports[4]))
	pebbleConfig, _ := json.Marshal(map[string]any{"pebble": map[string]any{
		"listenAddress": fmt.Sprintf("127.0.0.1:%d", wfe), "managementListenAddress": fmt.Sprintf("127.0.0.1:%d", mgmt),
		"certificate": wfeCert, "privateKey": wfeKey, "httpPort": challenge, "tlsPort": ports[5],
		"ocspResponderURL": "", "externalAccountBindingRequired": false,
	}})
	cfgFile := filepath.Join(dir, "pebble.json")
	os.WriteFile(cfgFile, pebbleConfig, 0o600)
	startProcess(t, []string{"PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0", "PEBBLE_AUTHZREUSE=0"},
		filepath.Join(bin, "pebble"), "-config", cfgFile, "-dnsserver", fmt.Sprintf("127.0.0.1:%d", dns))
	directory := fmt.Sprintf("https://127.0.0.1:%d/dir", wfe)
	pebbleClient := noRedirects(ca.pool(), "")
	for i := 0; ; i++ {
		resp, err := pebbleClient.Get(directory)
		if err == nil {
			resp.Body.Close()
			break
		}
		if i == 300 {
			t.Fatalf("pebble did not answer at %s: %v", directory, err)
		}
		time.Sleep(100 * time.Millisecond)
	}

	c := config.Demo()
	c.Store.DataDir = t.TempDir()
	c.Deployment.Hostnames = append(c.Deployment.Hostnames, host)
	c.TLS = config.TLS{Mode: "acme", ACMEDirectory: directory, ACMECAFile: caFile, ACMEEmail: "owner@frontdesk.test",
		HTTPAddr: fmt.Sprintf("127.0.0.1:%d", challenge), HSTSSeconds: 31536000}
	m := &Main{Config: c, Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler), Clock: clock.System{}, Out: io.Discard, ready: make(chan struct{})}
	runUntilCleanup(t, m)

	// The certificate chains to pebble's root, which its management
	// interface hands out.
	resp, err := pebbleClient.Get(fmt.Sprintf("https://127.0.0.1:%d/roots/0", mgmt))
	if err != nil {
		t.Fatal(err)
	}
	rootPEM, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(rootPEM) {
		t.Fatalf("pebble's root is not PEM: %q", rootPEM)
	}
	client := noRedirects(roots, host)
	req, _ := http.NewRequest(http.MethodGet, m.URL+"/policy", nil)
	req.Host = host
	resp, err = client.Do(req)
	if err != nil {
		t.Fatalf("HTTPS with a certificate from pebble: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") != "max-age=31536000" {
		t.Fatalf("GET /policy = %d, HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
	if got := resp.TLS.PeerCertificates[0].DNSNames; len(got) != 1 || got[0] != host {
		t.Fatalf("certificate names %v, want [%s]", got, host)
	}
	if _, err := os.Stat(filepath.Join(c.Store.DataDir, "acme", host)); err != nil {
		t.Fatalf("the certificate is not cached in the data directory: %v", err)
	}
}

// runUntilCleanup runs m until the test ends and returns once it serves.
func runUntilCleanup(t *testing.T, m *Main) {
	t.Helper()
	ctx, cancel := contextWithCancel()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	select {
	case <-m.ready:
	case err := <-done:
		cancel()
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run returned %v", err)
		}
	})
}

func contextWithCancel() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}
