package orp

import "frontdesk/forget"

// RecordKinds registers the ORP host's kinds: partners, their deals,
// messages, codes, clicks and the business's accounts; none holds a
// guest's contact.
func RecordKinds() []forget.Kind {
	kinds := []struct{ name, keeps string }{
		{kindClickPage, "a page of the click log"}, {kindClickIDPage, "a page of click ids"},
		{kindSession, "a party's session"}, {kindPair, "a constraint between two parties"},
		{kindSpent, "what a constraint has spent"}, {kindHostKey, "the host's signing keys"},
		{kindRepInput, "an input to a party's reputation"}, {kindDispute, "a dispute between parties"},
		{kindClickMark, "the click journal's mark"}, {kindOpen, "a party's open items, against its limit"},
		{kindClickLog, "a batch of clicks on a link"}, {kindInboxSeq, "a party's inbox sequence"},
		{kindApproval, "an approval of a many-party deal"}, {kindAccount, "an owner's account"},
		{kindHandle, "an owner's WebAuthn user handle"}, {kindMail, "the hash of an owner's address"},
		{kindOwned, "the parties an owner holds"}, {kindOwnerSess, "an owner's session"},
		{kindCeremony, "a passkey ceremony in progress"}, {kindMailLink, "an owner's sign-in link"},
		{kindBusiness, "the business as an ORP party"}, {kindParty, "a party"}, {kindToken, "a party's token"},
		{kindMessage, "a message between parties"}, {kindDeal, "a deal"}, {kindOffer, "an offer"},
		{kindSpace, "a space"}, {kindEscalate, "an escalation"}, {kindInbox, "an inbox entry"},
		{kindLink, "a partner link"}, {kindLinkStat, "a link's counts"}, {kindCode, "a partner code"},
		{kindConv, "a conversation"}, {kindConvKey, "a conversation's key"}, {kindClaim, "a claim"},
		{kindRequest, "a request between parties"}, {kindPayout, "a payout"}, {kindSale, "a sale a partner brought"},
		{kindRep, "a party's reputation"}, {kindEvent, "a provider event already applied"}, {kindHostMeta, "the host's origin"},
	}
	out := make([]forget.Kind, len(kinds))
	for i, k := range kinds {
		out[i] = forget.Kind{Name: k.name, Keeps: k.keeps, Forget: forget.Nothing}
	}
	return out
}
