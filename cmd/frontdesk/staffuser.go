package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"frontdesk/staff"
)

// stringList is a flag that may be given more than once.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// runStaffAddUser is `frontdesk staff add-user`: it creates a staff login
// on the same store as serve. The password comes from --password-file, or
// is asked for without echo on a terminal, or read as one line from
// standard input otherwise; it never comes from a flag, where it would
// sit in the shell history and the process list.
func runStaffAddUser(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var username, passwordFile, role *string
	var locations stringList
	m, fs, err := newMainWith("staff add-user", args, stdout, stderr, func(fs *flag.FlagSet) {
		username = fs.String("username", "", "the login name (required)")
		passwordFile = fs.String("password-file", "", "file whose first line is the password; without it, the password is asked for")
		role = fs.String("role", "clerk", "owner (every location, settings) or clerk (listed locations only)")
		fs.Var(&locations, "location", "a location slug the clerk works at; repeat for several")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff add-user: unexpected argument %q", fs.Arg(0))
	}
	if *username == "" {
		return errors.New("staff add-user: --username is required")
	}
	c := m.Config
	password, err := readPassword(*passwordFile, stdin, stderr)
	if err != nil {
		return err
	}
	st, err := openStore(ctx, c.Store)
	if err != nil {
		return err
	}
	defer closing(&err, st)
	svc, err := staff.New(st, c, staff.Options{})
	if err != nil {
		return err
	}
	u, err := svc.AddUser(ctx, *username, password, staff.Role(*role), locations)
	if err != nil {
		var e *staff.Error
		if errors.As(err, &e) && e.Code != staff.CodeInternal {
			return fmt.Errorf("staff add-user: %s", e.Message)
		}
		return err
	}
	scope := "every location"
	if u.Role == staff.Clerk {
		scope = strings.Join(u.Locations, ", ")
	}
	fmt.Fprintf(stdout, "added %s %s (%s)\n", u.Role, u.Username, scope)
	return nil
}

// readPassword takes the password from file, a no-echo prompt on a
// terminal, or one line of stdin.
func readPassword(file string, stdin io.Reader, stderr io.Writer) (string, error) {
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
	line, err := bufio.NewReader(stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
