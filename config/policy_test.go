package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"frontdesk/business"
	"frontdesk/payment/stripe"
)

// withPolicy appends a policy table to the demo's first unit.
func withPolicy(t *testing.T, table string) string {
	t.Helper()
	file := string(DemoTOML)
	first := "[[locations.units]]\ntype = \"single\"\n"
	i := strings.Index(file, first)
	if i < 0 {
		t.Fatal("the demo's first unit moved")
	}
	next := i + len(first) + strings.Index(file[i+len(first):], "\n[")
	return file[:next] + "\n[locations.units.policy]\n" + table + file[next:]
}

func TestPolicyReadsIntoMinorUnits(t *testing.T) {
	c, err := Load([]byte(withPolicy(t, "payment = \"deposit_required\"\ndeposit = \"30%\"\nfree_cancel_hours = 48\nlate_cancel_fee = \"40.00\"\nreschedule_fee = \"10.50\"\n")))
	if err != nil {
		t.Fatal(err)
	}
	terms, err := c.Locations[0].Units[0].Policy.Terms(c.Business.Currency)
	if err != nil {
		t.Fatal(err)
	}
	want := business.Terms{Timing: business.PayDeposit, DepositKind: business.DepositPercent, DepositValue: 30,
		FreeCancel: 48 * 3600e9, LateCancelFee: 4000, NoShowKeeps: true, RescheduleFee: 1050}
	if terms != want {
		t.Fatalf("terms = %+v, want %+v", terms, want)
	}
	other, err := c.Locations[0].Units[1].Policy.Terms(c.Business.Currency)
	if err != nil || other.Timing != business.PayAtService || other.TakesMoney() {
		t.Fatalf("a unit without a policy = %+v, %v; want at_service", other, err)
	}
}

// TestPolicyProblemsNameTheirKeys: every bad policy value is reported
// with its key and line, all at once, and nothing loads.
func TestPolicyProblemsNameTheirKeys(t *testing.T) {
	file := withPolicy(t, "payment = \"upfront\"\ndeposit = \"-5\"\nfree_cancel_hours = -1\nlate_cancel_fee = \"4.005\"\nreschedule_fee = \"0\"\n")
	_, err := Load([]byte(file))
	if err == nil {
		t.Fatal("Load accepted a bad policy")
	}
	lines := strings.Split(file, "\n")
	lineOf := func(s string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, s) }) + 1
	}
	p := "locations[0].units[0].policy."
	for _, want := range []string{
		fmt.Sprintf(`%spayment: must be "at_service" (the default), "deposit_required" or "at_booking", got "upfront" (line %d)`, p, lineOf("payment")),
		fmt.Sprintf(`%sdeposit: is for payment = "deposit_required" only (line %d)`, p, lineOf("deposit")),
		fmt.Sprintf(`%sfree_cancel_hours: must be from 0 to 8784, got -1 (line %d)`, p, lineOf("free_cancel_hours")),
		fmt.Sprintf(`%slate_cancel_fee: has more than 2 decimals for USD, got "4.005" (line %d)`, p, lineOf("late_cancel_fee")),
		fmt.Sprintf(`%sreschedule_fee: must be more than zero; leave it out for none (line %d)`, p, lineOf("reschedule_fee")),
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Load =\n%s\nwant a line %q", err, want)
		}
	}
}

func TestPolicyRefusals(t *testing.T) {
	for _, tc := range []struct{ table, want string }{
		{"payment = \"deposit_required\"\n", `policy.deposit: is required with payment = "deposit_required": an amount such as "50.00" or a percentage of the price such as "30%"`},
		{"payment = \"deposit_required\"\ndeposit = \"120%\"\n", `policy.deposit: a percentage must be a whole number from 1% to 100%, got "120%"`},
		{"late_cancel_fee = \"40.00\"\n", "policy.late_cancel_fee: needs free_cancel_hours: the fee is charged for a cancellation later than that many hours before the start"},
		{"no_show_refund = \"yes\"\n", "policy.no_show_refund: must be true or false"},
	} {
		_, err := Load([]byte(withPolicy(t, tc.table)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: Load = %v, want %q", tc.table, err, tc.want)
		}
	}
}

// TestPolicyFitsThePrice: a zero-priced timed unit takes no money, and a
// fixed deposit cannot exceed the slot's price.
func TestPolicyFitsThePrice(t *testing.T) {
	shuttle := "[locations.units.policy]\npayment = \"at_booking\"\n" // the demo shuttle's, replaced
	for _, tc := range []struct{ price, table, want string }{
		{"0.00", "payment = \"at_booking\"\n", "policy.payment: a unit whose price is zero takes no money; leave payment out"},
		{"25.00", "payment = \"deposit_required\"\ndeposit = \"30.00\"\n", `policy.deposit: must not be more than the price (25.00), got "30.00"`},
	} {
		file := strings.Replace(string(DemoTOML), `price = "25.00"`, `price = "`+tc.price+`"`, 1)
		file = strings.Replace(file, shuttle, "[locations.units.policy]\n"+tc.table, 1)
		_, err := Load([]byte(file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: Load = %v, want %q", tc.price, tc.table, err, tc.want)
		}
	}
}

// TestExampleShowsEveryPolicySetting: the commented policy block that
// frontdesk init prints names every policy key, and uncommented it is a
// valid deposit policy.
func TestExampleShowsEveryPolicySetting(t *testing.T) {
	example := string(ExampleTOML)
	start := strings.Index(example, "# [locations.units.policy]\n")
	if start < 0 {
		t.Fatal("the example has no commented [locations.units.policy]")
	}
	var block []string
	for _, line := range strings.Split(example[start:], "\n") {
		if !strings.HasPrefix(line, "# ") {
			break
		}
		block = append(block, strings.TrimPrefix(line, "# "))
	}
	for _, key := range []string{"payment", "deposit", "free_cancel_hours", "late_cancel_fee", "no_show_refund", "reschedule_fee"} {
		if !slices.ContainsFunc(block, func(l string) bool { return strings.HasPrefix(l, key+" = ") }) {
			t.Errorf("the example's policy block lacks %s", key)
		}
	}
	uncommented := strings.Join(block, "\n")
	var raw []string
	for _, l := range block {
		raw = append(raw, "# "+l)
	}
	file := strings.Replace(example, strings.Join(raw, "\n"), uncommented, 1)
	c, err := Load([]byte(file))
	if err != nil {
		t.Fatalf("the example with its policy uncommented: %v", err)
	}
	terms, err := c.Locations[0].Units[0].Policy.Terms(c.Business.Currency)
	if err != nil || terms.Timing != business.PayDeposit || terms.DepositValue != 30 || terms.LateCancelFee != 4000 || terms.RescheduleFee != 1000 || !terms.NoShowKeeps {
		t.Fatalf("terms = %+v, %v", terms, err)
	}
}

// TestExampleShowsEveryFeeSetting: the commented fee block that
// frontdesk init prints names every fee key, and uncommented it is a
// valid fee of the example's first unit.
func TestExampleShowsEveryFeeSetting(t *testing.T) {
	example := string(ExampleTOML)
	start := strings.Index(example, "# [[locations.units.fees]]\n")
	if start < 0 {
		t.Fatal("the example has no commented [[locations.units.fees]]")
	}
	var block []string
	for _, line := range strings.Split(example[start:], "\n") {
		if !strings.HasPrefix(line, "# ") {
			break
		}
		block = append(block, strings.TrimPrefix(line, "# "))
	}
	for _, key := range []string{"name", "amount", "per", "taxable"} {
		if !slices.ContainsFunc(block, func(l string) bool { return strings.HasPrefix(l, key+" = ") }) {
			t.Errorf("the example's fee block lacks %s", key)
		}
	}
	var raw []string
	for _, l := range block {
		raw = append(raw, "# "+l)
	}
	file := strings.Replace(example, strings.Join(raw, "\n"), strings.Join(block, "\n"), 1)
	c, err := Load([]byte(file))
	if err != nil {
		t.Fatalf("the example with its fee uncommented: %v", err)
	}
	fees, err := c.Locations[0].Units[0].Charges(c.Business.Currency)
	want := []business.Charge{{Name: "Cleaning fee", Amount: 3500, Per: business.FeePerStay, Taxable: true}}
	if err != nil || !slices.Equal(fees, want) {
		t.Fatalf("fees = %+v, %v", fees, err)
	}
}

// TestFeeErrors: every problem of a fee list is reported at once, each
// naming its fee and key; a timed unit is told fees are not for it.
func TestFeeErrors(t *testing.T) {
	c := Demo()
	fees := []business.Fee{
		{Name: "Cleaning fee", Amount: "35.00", Per: "stay", Taxable: true}, // fine
		{Name: "", Amount: "abc", Per: "week"},
		{Name: "cleaning FEE", Amount: "0.00", Per: "night"},
		{Name: "Linen", Amount: "1.234", Per: "guest"},
	}
	var shuttle int
	for i, u := range c.Locations[2].Units {
		if u.Kind == business.KindTimed {
			shuttle = i
		}
	}
	c.Locations[0].Units[0].Fees = fees
	c.Locations[2].Units[shuttle].Fees = fees[:1]
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate accepted bad fees")
	}
	got := err.Error()
	for _, want := range []string{
		`locations[0].units[0].fees[1].name: must be a short name of 1 to 40 characters, such as "Cleaning fee", got ""`,
		`locations[0].units[0].fees[1].amount: `,
		`locations[0].units[0].fees[1].per: must be "stay", "night" or "guest", got "week"`,
		`locations[0].units[0].fees[2].name: "cleaning FEE" is listed twice`,
		`locations[0].units[0].fees[2].amount: must be more than zero; leave the fee out for none`,
		`locations[0].units[0].fees[3].amount: `,
		fmt.Sprintf(`locations[2].units[%d].fees: are for units sold by the night only; put a timed unit's whole price in price`, shuttle),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "fees[0]") {
		t.Errorf("a good fee was refused:\n%s", got)
	}
	c = Demo()
	c.Locations[0].Units[0].Fees = fees[:1]
	if err := c.Validate(); err != nil {
		t.Fatalf("a good fee: %v", err)
	}
}

// TestExampleNamesThePaymentSettings: the example frontdesk init prints
// names, commented, every environment setting of the payment provider,
// and the sentence a paid booking is refused with when none is set.
func TestExampleNamesThePaymentSettings(t *testing.T) {
	example := string(ExampleTOML)
	for _, want := range []string{"#   " + stripe.EnvKey + "=", "#   " + stripe.EnvWebhookSecret + "=", "#   " + stripe.EnvMock + "=", stripe.EnvKey + "_FILE", "naming FRONTDESK_STRIPE_KEY"} {
		if !strings.Contains(example, want) {
			t.Errorf("the example lacks %q", want)
		}
	}
}
