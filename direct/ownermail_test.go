package direct

import (
	"strings"
	"testing"
)

// TestOwnerMailQuotedInAReply: staff answer a new chat reservation's
// owner mail by replying to it, which quotes it to its Reply-To, the
// guest. Another guest with the same phone number (stored with an
// extension) and the same dates has nothing of theirs in the reply.
// The mail links the staff screen.
func TestOwnerMailQuotedInAReply(t *testing.T) {
	w := newWorld(t)
	eve := w.book(stayArgs("property", "oldtown", "guest_name", "Eve Other", "email", "eve@example.net", "phone", "303-555-0199 x12"))
	ada := w.book(stayArgs())

	var owner *ownerReply
	for _, m := range w.messages() {
		if m.Subject == "New chat reservation "+ada+" at Riverside Inn" {
			owner = &ownerReply{to: m.ReplyTo, text: "Thanks, see you soon.\n\n" + quote(m.Text)}
		}
	}
	if owner == nil {
		t.Fatal("no owner mail for the reservation")
	}
	if owner.to != "ada@example.com" {
		t.Fatalf("the reply goes to %q", owner.to)
	}
	for _, other := range []string{eve, "Eve", "eve@example.net", "x12", "Old Town"} {
		if strings.Contains(owner.text, other) {
			t.Errorf("the reply to Ada quotes %q of another guest:\n%s", other, owner.text)
		}
	}
	if !strings.Contains(owner.text, "> http://localhost:8080/staff/reservations/"+ada) {
		t.Errorf("the owner mail has no staff-screen link:\n%s", owner.text)
	}

}

type ownerReply struct{ to, text string }

// quote is how a mail reader quotes a message in a reply.
func quote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "> " + l
	}
	return strings.Join(lines, "\n") + "\n"
}
