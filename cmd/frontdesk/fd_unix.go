//go:build unix

package main

import "syscall"

// descriptorBudget is how many client connections may be open at once:
// the process's file limit less a reserve for the store, logs and the
// tracked-link writer, so a crowd of clients cannot starve them.
func descriptorBudget() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur > 1<<30 {
		return 0
	}
	return max(int(lim.Cur)-256, 64)
}
