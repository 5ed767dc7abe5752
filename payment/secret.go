package payment

import (
	"fmt"
	"os"
	"strings"
)

// Secret is a credential, such as a provider's API key or webhook
// signing secret. It prints as "[secret]" in every format, so it never
// reaches a log by accident; Reveal gives the value to the one call that
// sends it.
type Secret struct{ value string }

// NewSecret wraps value.
func NewSecret(value string) Secret { return Secret{value: value} }

// Reveal returns the value.
func (s Secret) Reveal() string { return s.value }

// Set reports whether the secret has a value.
func (s Secret) Set() bool { return s.value != "" }

func (s Secret) String() string { return "[secret]" }

// GoString keeps %#v from printing the value.
func (s Secret) GoString() string { return "payment.Secret([secret])" }

// MarshalText keeps encoders from writing the value.
func (s Secret) MarshalText() ([]byte, error) { return []byte("[secret]"), nil }

// ReadSecret reads the secret the environment variable name holds, or
// the file the variable name+"_FILE" names (trailing newlines trimmed),
// through getenv. Both set is an error, so two sources never disagree
// silently; neither set is the zero Secret. Errors name the variables
// and the file, never the value.
func ReadSecret(getenv func(string) string, name string) (Secret, error) {
	value, file := getenv(name), getenv(name+"_FILE")
	switch {
	case value != "" && file != "":
		return Secret{}, fmt.Errorf("%s and %s_FILE are both set; set one", name, name)
	case file != "":
		body, err := os.ReadFile(file)
		if err != nil {
			return Secret{}, fmt.Errorf("%s_FILE: %w", name, err)
		}
		value = strings.TrimRight(string(body), "\r\n")
		if value == "" {
			return Secret{}, fmt.Errorf("%s_FILE: %s is empty", name, file)
		}
	}
	return Secret{value: value}, nil
}
