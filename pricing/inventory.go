package pricing

import "maps"

// RefusalHeaders are the first lines of the quote refusals that have a
// fixed one, by kind, for the refusal inventory; the lines after them
// name the request's own values.
func RefusalHeaders() map[RefusalKind]string { return maps.Clone(headers) }
