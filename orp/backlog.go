package orp

// ClickBacklog is how many clicks wait for the click writer to log them
// (their redirects wait with them): a number that grows and stays up
// means the store cannot keep up.
func (h *Host) ClickBacklog() int {
	if h.clicks == nil {
		return 0
	}
	h.clicks.mu.Lock()
	defer h.clicks.mu.Unlock()
	if h.clicks.open == nil {
		return 0
	}
	return len(h.clicks.open.events)
}
