package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"frontdesk/config"
	"frontdesk/internal/clock"
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
func runStaffAddUser(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var username, passwordFile, role *string
	var locations stringList
	m, fs, err := newMainWith(clk, "staff add-user", args, stdout, stderr, func(fs *flag.FlagSet) {
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
	password, svc, done, err := passwordAndLogins(ctx, m.Config, *passwordFile, stdin, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	u, err := svc.AddUser(ctx, *username, password, staff.Role(*role), locations)
	if err != nil {
		return staffFailure("staff add-user", err)
	}
	fmt.Fprintf(stdout, "added %s %s (%s)\n", u.Role, u.Username, scopeWords(u))
	return nil
}

// openLogins opens the store of c and the logins in it; done closes the
// store.
func openLogins(ctx context.Context, c config.Config) (svc *staff.Service, done func() error, err error) {
	st, err := openStore(ctx, c.Store)
	if err != nil {
		return nil, nil, err
	}
	svc, err = staff.New(st, c.Portfolio, staff.Options{})
	if err != nil {
		return nil, nil, errors.Join(err, st.Close())
	}
	return svc, st.Close, nil
}

// passwordAndLogins reads a password as readPassword does, then opens
// the logins, for the commands that set one.
func passwordAndLogins(ctx context.Context, c config.Config, file string, stdin io.Reader, stderr io.Writer) (string, *staff.Service, func() error, error) {
	password, err := readPassword(file, stdin, stderr)
	if err != nil {
		return "", nil, nil, err
	}
	svc, done, err := openLogins(ctx, c)
	return password, svc, done, err
}

// staffFailure words a refusal of the staff package for the command
// line; storage trouble passes as it is.
func staffFailure(cmd string, err error) error {
	if e, ok := staff.AsError(err); ok && e.Code != staff.CodeInternal {
		return fmt.Errorf("%s: %s", cmd, e.Message)
	}
	return err
}

func scopeWords(u staff.User) string {
	if u.Role == staff.Clerk {
		return strings.Join(u.Locations, ", ")
	}
	return "every location"
}

// runStaffUsers is `frontdesk staff users`: every login, its role, scope
// and whether it is disabled.
func runStaffUsers(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, fs, err := newMainWith(clk, "staff users", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("staff users: unexpected argument %q", fs.Arg(0))
	}
	svc, done, err := openLogins(ctx, m.Config)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	users, err := svc.Users(ctx)
	if err != nil {
		return err
	}
	if len(users) == 0 {
		fmt.Fprintln(stdout, "no logins yet: add the first with frontdesk staff add-user --username NAME --role owner")
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USERNAME\tROLE\tLOCATIONS\tSTATE\tCREATED")
	for _, u := range users {
		state := "enabled"
		if u.Disabled {
			state = "disabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.Username, u.Role, scopeWords(u), state, u.CreatedAt.UTC().Format(time.DateOnly))
	}
	return tw.Flush()
}

// runStaffRemoveUser is `frontdesk staff remove-user USERNAME`.
func runStaffRemoveUser(ctx context.Context, clk clock.Clock, args []string, stdout, stderr io.Writer) (err error) {
	m, fs, err := newMainWith(clk, "staff remove-user", args, stdout, stderr, nil)
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("staff remove-user: give one username (see frontdesk staff remove-user --help)")
	}
	svc, done, err := openLogins(ctx, m.Config)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	if err := svc.RemoveUser(ctx, fs.Arg(0)); err != nil {
		return staffFailure("staff remove-user", err)
	}
	fmt.Fprintf(stdout, "removed %s; their sessions ended\n", fs.Arg(0))
	return nil
}

// runStaffResetPassword is `frontdesk staff reset-password USERNAME`,
// with the password read as add-user reads it.
func runStaffResetPassword(ctx context.Context, clk clock.Clock, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	var passwordFile *string
	m, fs, err := newMainWith(clk, "staff reset-password", args, stdout, stderr, func(fs *flag.FlagSet) {
		passwordFile = fs.String("password-file", "", "file whose first line is the new password; without it, the password is asked for")
	})
	if err != nil {
		return ignoreHelp(err)
	}
	if fs.NArg() != 1 {
		return errors.New("staff reset-password: give one username (see frontdesk staff reset-password --help)")
	}
	password, svc, done, err := passwordAndLogins(ctx, m.Config, *passwordFile, stdin, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	if _, err := svc.ResetPassword(ctx, fs.Arg(0), password); err != nil {
		return staffFailure("staff reset-password", err)
	}
	fmt.Fprintf(stdout, "new password set for %s; their sessions ended\n", fs.Arg(0))
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
