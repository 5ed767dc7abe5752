package config

// Privacy is how long guest data is kept.
type Privacy struct {
	// RetentionDays is how long after a stay or appointment ends its
	// guest's contact is kept: the sweep then clears name, address, phone
	// and notes from the reservation and deletes the mail, intents and
	// receipts older than that. 0 keeps them until `frontdesk forget`.
	RetentionDays int `toml:"retention_days"`
}

// minRetentionDays leaves a stay's disputes and late staff decisions
// their contact.
const minRetentionDays = 30

func (c Config) validatePrivacy(v *validator) {
	if d := c.Privacy.RetentionDays; d != 0 && d < minRetentionDays {
		v.add("privacy.retention_days", "must be 0 (keep until forgotten) or at least %d days, got %d", minRetentionDays, d)
	}
}
