package booking

// NoticeDueKind is the record kind of the notices still to deliver (the
// due index), which monitoring counts: it never holds delivered mail.
const NoticeDueKind = kindNoticeDue
