package httpsig

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// The messages of RFC 9421 Appendix B.2, as they travel.
const (
	testRequest = "POST /foo?param=Value&Pet=dog HTTP/1.1\r\n" +
		"Host: example.com\r\n" +
		"Date: Tue, 20 Apr 2021 02:07:55 GMT\r\n" +
		"Content-Type: application/json\r\n" +
		"Content-Digest: sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:\r\n" +
		"Content-Length: 18\r\n" +
		"\r\n" +
		`{"hello": "world"}`
	testResponse = "HTTP/1.1 200 OK\r\n" +
		"Date: Tue, 20 Apr 2021 02:07:56 GMT\r\n" +
		"Content-Type: application/json\r\n" +
		"Content-Digest: sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:\r\n" +
		"Content-Length: 23\r\n" +
		"\r\n" +
		`{"message": "good dog"}`
	sharedSecret = "uzvJfB4u3N0Jy4T7NZ75MDVcr8zSTInedJtkgcu46YW4XByzNJjxBdtjUkdJPBtbmHhIDi6pcl8jsasjlTMtDQ=="
	// created of every Appendix B.2 signature.
	rfcCreated = 1618884473
)

func readRequest(t testing.TB, wire string) (*http.Request, []byte) {
	t.Helper()
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
	if err != nil {
		t.Fatal(err)
	}
	return r, readBody(t, r.Body)
}

func readResponse(t testing.TB, wire string) (*http.Response, []byte) {
	t.Helper()
	r, err := http.ReadResponse(bufio.NewReader(strings.NewReader(wire)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, readBody(t, r.Body)
}

func readBody(t testing.TB, body io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type rfcKeys struct {
	rsaPSS  *rsa.PublicKey
	p256    *ecdsa.PrivateKey
	ed25519 ed25519.PrivateKey
	secret  []byte
}

func loadKeys(t testing.TB) rfcKeys {
	t.Helper()
	data, err := os.ReadFile("testdata/rfc9421-keys.txt")
	if err != nil {
		t.Fatal(err)
	}
	var k rfcKeys
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			break
		}
		switch block.Type {
		case "PUBLIC KEY":
			pub, err := x509.ParsePKIXPublicKey(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			k.rsaPSS = pub.(*rsa.PublicKey)
		case "EC PRIVATE KEY":
			if k.p256, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
				t.Fatal(err)
			}
		case "PRIVATE KEY":
			priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
			if err != nil {
				t.Fatal(err)
			}
			k.ed25519 = priv.(ed25519.PrivateKey)
		}
	}
	if k.secret, err = base64.StdEncoding.DecodeString(sharedSecret); err != nil {
		t.Fatal(err)
	}
	return k
}

func (k rfcKeys) resolver() Resolver {
	return ResolverFunc(func(_ context.Context, id string) (VerifyingKey, error) {
		switch id {
		case "test-key-rsa-pss":
			return VerifyingKey{Algorithm: RSAPSSSHA512, Key: k.rsaPSS}, nil
		case "test-key-ecc-p256":
			return VerifyingKey{Algorithm: ECDSAP256SHA256, Key: &k.p256.PublicKey}, nil
		case "test-key-ed25519":
			return VerifyingKey{Algorithm: Ed25519, Key: k.ed25519.Public()}, nil
		case "test-shared-secret":
			return VerifyingKey{Algorithm: HMACSHA256, Key: k.secret}, nil
		}
		return VerifyingKey{}, ErrKeyNotFound
	})
}

// everyAlgorithm accepts what the RFC's examples use, HMAC included.
var everyAlgorithm = Policy{Algorithms: []Algorithm{Ed25519, ECDSAP256SHA256, RSAPSSSHA512, HMACSHA256}}

// appendixB2 are the examples of RFC 9421 Appendix B.2: the fields as
// published and the signature base they stand for.
type appendixExample struct {
	name, input, signature, base string
	response                     bool
}

var appendixB2 = []appendixExample{
	{
		name:      "B.2.1 minimal rsa-pss-sha512",
		input:     `sig-b21=();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`,
		signature: `sig-b21=:d2pmTvmbncD3xQm8E9ZV2828BjQWGgiwAaw5bAkgibUopemLJcWDy/lkbbHAve4cRAtx31Iq786U7it++wgGxbtRxf8Udx7zFZsckzXaJMkA7ChG52eSkFxykJeNqsrWH5S+oxNFlD4dzVuwe8DhTSja8xxbR/Z2cOGdCbzR72rgFWhzx2VjBqJzsPLMIQKhO4DGezXehhWwE56YCE+O6c0mKZsfxVrogUvA4HELjVKWmAvtl6UnCh8jYzuVG5WSb/QEVPnP5TmcAnLH1g+s++v6d4s8m0gCw1fV5/SITLq9mhho8K3+7EPYTU8IU1bLhdxO5Nyt8C8ssinQ98Xw9Q==:`,
		base:      `"@signature-params": ();created=1618884473;keyid="test-key-rsa-pss";nonce="b3k2pp5k7z-50gnwp.yemd"`,
	},
	{
		name:      "B.2.2 selective rsa-pss-sha512",
		input:     `sig-b22=("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"`,
		signature: `sig-b22=:LjbtqUbfmvjj5C5kr1Ugj4PmLYvx9wVjZvD9GsTT4F7GrcQEdJzgI9qHxICagShLRiLMlAJjtq6N4CDfKtjvuJyE5qH7KT8UCMkSowOB4+ECxCmT8rtAmj/0PIXxi0A0nxKyB09RNrCQibbUjsLS/2YyFYXEu4TRJQzRw1rLEuEfY17SARYhpTlaqwZVtR8NV7+4UKkjqpcAoFqWFQh62s7Cl+H2fjBSpqfZUJcsIk4N6wiKYd4je2U/lankenQ99PZfB4jY3I5rSV2DSBVkSFsURIjYErOs0tFTQosMTAoxk//0RoKUqiYY8Bh0aaUEb0rQl3/XaVe4bXTugEjHSw==:`,
		base: `"@authority": example.com
"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
"@query-param";name="Pet": dog
"@signature-params": ("@authority" "content-digest" "@query-param";name="Pet");created=1618884473;keyid="test-key-rsa-pss";tag="header-example"`,
	},
	{
		name:      "B.2.3 full coverage rsa-pss-sha512",
		input:     `sig-b23=("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`,
		signature: `sig-b23=:bbN8oArOxYoyylQQUU6QYwrTuaxLwjAC9fbY2F6SVWvh0yBiMIRGOnMYwZ/5MR6fb0Kh1rIRASVxFkeGt683+qRpRRU5p2voTp768ZrCUb38K0fUxN0O0iC59DzYx8DFll5GmydPxSmme9v6ULbMFkl+V5B1TP/yPViV7KsLNmvKiLJH1pFkh/aYA2HXXZzNBXmIkoQoLd7YfW91kE9o/CCoC1xMy7JA1ipwvKvfrs65ldmlu9bpG6A9BmzhuzF8Eim5f8ui9eH8LZH896+QIF61ka39VBrohr9iyMUJpvRX2Zbhl5ZJzSRxpJyoEZAFL2FUo5fTIztsDZKEgM4cUA==:`,
		base: `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@query": ?param=Value&Pet=dog
"@authority": example.com
"content-type": application/json
"content-digest": sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@query" "@authority" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-rsa-pss"`,
	},
	{
		name:      "B.2.4 response ecdsa-p256-sha256",
		response:  true,
		input:     `sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"`,
		signature: `sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:`,
		base: `"@status": 200
"content-type": application/json
"content-digest": sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:
"content-length": 23
"@signature-params": ("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"`,
	},
	{
		name:      "B.2.5 hmac-sha256",
		input:     `sig-b25=("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`,
		signature: `sig-b25=:pxcQw6G3AjtMBQjwo8XzkZf/bws5LelbaMk5rGIGtE8=:`,
		base: `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@authority": example.com
"content-type": application/json
"@signature-params": ("date" "@authority" "content-type");created=1618884473;keyid="test-shared-secret"`,
	},
	{
		name:      "B.2.6 ed25519",
		input:     `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
		signature: `sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:`,
		base: `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`,
	},
}

func (tc appendixExample) message(t *testing.T) Message {
	if tc.response {
		r, _ := readResponse(t, testResponse)
		return Response(r.StatusCode, r.Header.Clone())
	}
	r, _ := readRequest(t, testRequest)
	m := Request(r)
	m.Header = r.Header.Clone()
	return m
}

func TestAppendixB2(t *testing.T) {
	keys := loadKeys(t)
	now := time.Unix(rfcCreated, 0)
	for _, tc := range appendixB2 {
		t.Run(tc.name, func(t *testing.T) {
			inputs, err := ParseSignatureInput([]string{tc.input})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := FormatSignatureInput(inputs...); got != tc.input {
				t.Fatalf("Signature-Input re-serialized =\n%s\nwant\n%s", got, tc.input)
			}
			m := tc.message(t)
			base, err := Base(m, inputs[0])
			if err != nil {
				t.Fatal(err)
			}
			if string(base) != tc.base {
				t.Fatalf("signature base =\n%s\nwant\n%s", base, tc.base)
			}
			m.Header.Set("Signature-Input", tc.input)
			m.Header.Set("Signature", tc.signature)
			v, err := Verify(context.Background(), m, now, keys.resolver(), everyAlgorithm)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if v.Input.Label != inputs[0].Label {
				t.Fatalf("verified label %s, want %s", v.Input.Label, inputs[0].Label)
			}
		})
	}
}

// TestAppendixB2DeterministicSignatures signs the Ed25519 and HMAC examples
// afresh: both algorithms are deterministic, so the fields must match the
// RFC byte for byte.
func TestAppendixB2DeterministicSignatures(t *testing.T) {
	keys := loadKeys(t)
	r, _ := readRequest(t, testRequest)
	m := Request(r)
	created := time.Unix(rfcCreated, 0)
	tests := []struct {
		key   SigningKey
		opts  SignOptions
		input string
		sig   string
	}{
		{
			key:   SigningKey{ID: "test-key-ed25519", Algorithm: Ed25519, Key: keys.ed25519},
			opts:  SignOptions{Label: "sig-b26", Created: created, Components: []Component{C("date"), C("@method"), C("@path"), C("@authority"), C("content-type"), C("content-length")}},
			input: appendixB2[5].input, sig: appendixB2[5].signature,
		},
		{
			key:   SigningKey{ID: "test-shared-secret", Algorithm: HMACSHA256, Key: keys.secret},
			opts:  SignOptions{Label: "sig-b25", Created: created, Components: []Component{C("date"), C("@authority"), C("content-type")}},
			input: appendixB2[4].input, sig: appendixB2[4].signature,
		},
	}
	for _, tt := range tests {
		t.Run(string(tt.key.Algorithm), func(t *testing.T) {
			s, err := Sign(m, tt.opts, tt.key, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.SignatureInput != tt.input || s.Signature != tt.sig {
				t.Fatalf("Sign =\n%s\n%s\nwant\n%s\n%s", s.SignatureInput, s.Signature, tt.input, tt.sig)
			}
		})
	}
}

// TestAppendixB4Transformations replays RFC 9421 Appendix B.4: changes
// outside the covered components keep the signature valid, changes to
// covered ones break it.
func TestAppendixB4Transformations(t *testing.T) {
	keys := loadKeys(t)
	const sigFields = "Signature-Input: transform=(\"@method\" \"@path\" \"@authority\" \"accept\");created=1618884473;keyid=\"test-key-ed25519\"\r\n" +
		"Signature: transform=:ZT1kooQsEHpZ0I1IjCqtQppOmIqlJPeo7DHR3SoMn0s5JZ1eRGS0A+vyYP9t/LXlh5QMFFQ6cpLt2m0pmj3NDA==:\r\n\r\n"
	tests := []struct {
		name, head string
		valid      bool
	}{
		{"as signed", "GET /demo?name1=Value1&Name2=value2 HTTP/1.1\r\nHost: example.org\r\nDate: Fri, 15 Jul 2022 14:24:55 GMT\r\nAccept: application/json\r\nAccept: */*\r\n", true},
		{"query and an uncovered field added", "GET /demo?name1=Value1&Name2=value2&param=added HTTP/1.1\r\nHost: example.org\r\nDate: Fri, 15 Jul 2022 14:24:55 GMT\r\nAccept: application/json\r\nAccept: */*\r\nAccept-Language: en-US,en;q=0.5\r\n", true},
		{"accept lines combined, date dropped", "GET /demo?name1=Value1&Name2=value2 HTTP/1.1\r\nHost: example.org\r\nAccept: application/json, */*\r\nReferer: https://developer.example.org/demo\r\n", true},
		{"method and authority changed", "POST /demo?name1=Value1&Name2=value2 HTTP/1.1\r\nHost: example.com\r\nDate: Fri, 15 Jul 2022 14:24:55 GMT\r\nAccept: application/json\r\nAccept: */*\r\n", false},
		{"accept values reordered", "GET /demo?name1=Value1&Name2=value2 HTTP/1.1\r\nHost: example.org\r\nDate: Fri, 15 Jul 2022 14:24:55 GMT\r\nAccept: */*\r\nAccept: application/json\r\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := readRequest(t, tt.head+sigFields)
			_, err := Verify(context.Background(), Request(r), time.Unix(rfcCreated, 0), keys.resolver(), Policy{})
			if tt.valid && err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if !tt.valid && codeOf(err) != CodeInvalid {
				t.Fatalf("Verify = %v, want %s", err, CodeInvalid)
			}
		})
	}
}

func codeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return ""
}

// TestDerivedComponents checks each derived component against the
// examples of RFC 9421 §2.2.
func TestDerivedComponents(t *testing.T) {
	r, _ := readRequest(t, "POST /path?param=value HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	m := Request(r)
	m.Scheme = "https"
	q, _ := readRequest(t, "GET /path?var=this%20is%20a%20big%0Avalue&bar=with+plus+whitespace&fa%C3%A7ade%22%3A%20=something&twice=1&twice=2 HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	empty, _ := readRequest(t, "GET /path? HTTP/1.1\r\nHost: WWW.Example.com:80\r\n\r\n")
	none, _ := readRequest(t, "GET /path HTTP/1.1\r\nHost: www.example.com\r\n\r\n")
	tests := []struct {
		m    Message
		c    Component
		want string
	}{
		{m, C("@method"), "POST"},
		{m, C("@target-uri"), "https://www.example.com/path?param=value"},
		{m, C("@authority"), "www.example.com"},
		{m, C("@scheme"), "https"},
		{m, C("@request-target"), "/path?param=value"},
		{m, C("@path"), "/path"},
		{m, C("@query"), "?param=value"},
		{Request(empty), C("@query"), "?"},
		{Request(empty), C("@authority"), "www.example.com"},
		{Request(empty), C("@target-uri"), "http://www.example.com/path?"},
		{Request(none), C("@query"), "?"},
		{Request(none), C("@request-target"), "/path"},
		{Request(q), QueryParam("var"), "this%20is%20a%20big%0Avalue"},
		{Request(q), QueryParam("bar"), "with%20plus%20whitespace"},
		{Request(q), QueryParam("fa\u00e7ade\": "), "something"},
		{Response(200, http.Header{}), C("@status"), "200"},
	}
	for _, tt := range tests {
		t.Run(tt.c.String()+" "+tt.want, func(t *testing.T) {
			got, err := tt.m.value(tt.c)
			if err != nil || got != tt.want {
				t.Fatalf("value = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if got, want := QueryParam("fa\u00e7ade\": ").String(), `"@query-param";name="fa%C3%A7ade%22%3A%20"`; got != want {
		t.Errorf("identifier %s, want %s", got, want)
	}
	refused := []struct {
		m Message
		c Component
	}{
		{Request(q), QueryParam("twice")},
		{Request(q), QueryParam("absent")},
		{m, C("@status")},
		{Response(200, http.Header{}), C("@method")},
		{m, C("@unknown")},
		{m, Component{Name: "content-type", Params: Params{{Key: "sf", Value: true}}}},
		{m, C("content-type")},
	}
	for _, tt := range refused {
		if got, err := tt.m.value(tt.c); err == nil {
			t.Errorf("%s = %q, want an error", tt.c, got)
		}
	}
}

// TestFieldValues checks the field examples of RFC 9421 §2.1: lines
// trimmed and joined with ", ".
func TestFieldValues(t *testing.T) {
	r, _ := readRequest(t, "GET / HTTP/1.1\r\nHost: www.example.com\r\nX-OWS-Header:   Leading and trailing whitespace.   \r\nCache-Control: max-age=60\r\nCache-Control:    must-revalidate\r\n\r\n")
	m := Request(r)
	for name, want := range map[string]string{
		"x-ows-header":  "Leading and trailing whitespace.",
		"cache-control": "max-age=60, must-revalidate",
	} {
		if got, err := m.value(C(name)); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
}
