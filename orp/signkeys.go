package orp

import (
	"fmt"
	"io"
)

// PrintKeys writes every published key with what it does, as `frontdesk
// orp keys list` shows them: the one that signs, and the older ones that
// still verify what they signed.
func (s *Signer) PrintKeys(w io.Writer) {
	for _, k := range s.Keys() {
		role := "published, verifies"
		if k.Kid == s.KeyID() {
			role = "signs"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", k.Kid, k.X, role)
	}
}
