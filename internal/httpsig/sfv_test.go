package httpsig

import "testing"

func TestStructuredFieldsRefused(t *testing.T) {
	for _, field := range []string{
		`sig1=("@method"`,                  // unterminated list
		`sig1=("@method";)`,                // parameter without a key
		`sig1=("@method"), `,               // trailing comma
		`sig1=(), sig1=()`,                 // repeated label
		`sig1=();created=1;created=2`,      // repeated parameter
		`sig1=();created=1618884473.5`,     // created must be an integer
		`sig1=();keyid=key`,                // keyid must be a string
		`sig1=("@Method")`,                 // names are lowercase
		`sig1=("@method" "@method")`,       // covered twice
		`sig1=(@method)`,                   // a token, not a string
		`sig1=("a\b")`,                     // bad escape
		`Sig1=()`,                          // uppercase key
		`sig1=();created=1234567890123456`, // 16 digits
		"sig1=(\"caf\xc3\xa9\")",           // outside printable ASCII
		`sig1=:AAAA:`,                      // not an inner list
	} {
		if got, err := ParseSignatureInput([]string{field}); err == nil {
			t.Errorf("ParseSignatureInput(%q) = %+v, want an error", field, got)
		}
	}
	for _, field := range []string{`sig1=:AA=A:`, `sig1=("@method")`, `sig1=:AAAA:;x=1`, `sig1=:AA AA:`} {
		if got, err := ParseSignature([]string{field}); err == nil {
			t.Errorf("ParseSignature(%q) = %v, want an error", field, got)
		}
	}
}

func TestStructuredFieldsAccepted(t *testing.T) {
	// Several field lines combine, whitespace around members is optional,
	// and every parameter type re-serializes canonically.
	lines := []string{`a=("@method");created=1;keyid="k\"\\";x=?0;y;z=tok/en:1;w=:AQID:;v=-1.50`, `  b=()`}
	inputs, err := ParseSignatureInput(lines)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FormatSignatureInput(inputs...)
	want := `a=("@method");created=1;keyid="k\"\\";x=?0;y;z=tok/en:1;w=:AQID:;v=-1.5, b=()`
	if err != nil || got != want {
		t.Fatalf("FormatSignatureInput = %s, %v; want %s", got, err, want)
	}
}
