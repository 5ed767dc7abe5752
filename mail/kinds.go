package mail

// DevKind is the record kind of mail the dev mailbox captured, which
// `frontdesk forget` searches for a guest's address.
const DevKind = devKind
