package staff

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"
)

// The command line's staff account commands (frontdesk staff add-user,
// users, remove-user, reset-password) word their answers here.

// CommandError words a refusal of this package for the command line
// cmd; storage trouble passes as it is.
func CommandError(cmd string, err error) error {
	if e, ok := AsError(err); ok && e.Code != CodeInternal {
		return fmt.Errorf("%s: %s", cmd, e.Message)
	}
	return err
}

// ScopeWords names where u works: the locations of a clerk, or every
// location.
func ScopeWords(u User) string {
	if u.Role == Clerk {
		return strings.Join(u.Locations, ", ")
	}
	return "every location"
}

// PrintUsers writes every login, its role, scope and whether it is
// disabled, as a table; with none, how to add the first.
func PrintUsers(w io.Writer, users []User) error {
	if len(users) == 0 {
		fmt.Fprintln(w, "no logins yet: add the first with frontdesk staff add-user --username NAME --role owner")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USERNAME\tROLE\tLOCATIONS\tSTATE\tCREATED")
	for _, u := range users {
		state := "enabled"
		if u.Disabled {
			state = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Username, u.Role, ScopeWords(u), state, u.CreatedAt.UTC().Format(time.DateOnly))
	}
	return tw.Flush()
}

// ReadPassword takes the password from file, a no-echo prompt on a
// terminal, or one line of stdin.
func ReadPassword(file string, stdin io.Reader, stderr io.Writer) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--password-file: %w", err)
		}
		line, _, _ := strings.Cut(string(b), "\n")
		return strings.TrimRight(line, "\r"), nil
	}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stderr, "Password: ")
		first, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		fmt.Fprint(stderr, "Again: ")
		second, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stderr)
		if err != nil {
			return "", err
		}
		if string(first) != string(second) {
			return "", errors.New("staff add-user: the passwords differ")
		}
		return string(first), nil
	}
	// One line exactly, a byte at a time, so that commands run one after
	// another on the same input (a script's) each read their own line.
	var line []byte
	var b [1]byte
	for len(line) < 4096 {
		n, err := stdin.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
	}
	return strings.TrimRight(string(line), "\r"), nil
}

// FirstLoginHint is the command that creates the first owner on this
// server's store, runnable as printed: it names the config file and data
// directory serve was given. A PostgreSQL URL may hold a password, so it
// is not printed; the hint says to pass serve's.
func FirstLoginHint(configFile string, postgres bool, dataDir, defaultDataDir string) string {
	hint := "frontdesk staff add-user --username owner --role owner"
	if configFile != "" {
		hint += " --config " + shellQuote(configFile)
	}
	switch {
	case postgres:
		hint += ", with serve's --database"
	case dataDir != defaultDataDir:
		hint += " --data " + shellQuote(dataDir)
	}
	return hint
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
