package config

import (
	"fmt"
	"strings"
	"testing"
)

// manyProperties is the demo business with its locations replaced by n
// generated ones of three room types each, in four time zones, as
// bench/scale.sh writes them.
func manyProperties(n int) []byte {
	demo := string(DemoTOML)
	head, tail := demo[:strings.Index(demo, "[[locations]]")], demo[strings.Index(demo, "[limits]"):]
	zones := []string{"America/Denver", "America/New_York", "Europe/Paris", "Asia/Tokyo"}
	var b strings.Builder
	b.WriteString(head)
	for i := range n {
		prefix := fmt.Sprintf("P%c%c%c", 'A'+i/676%26, 'A'+i/26%26, 'A'+i%26)
		fmt.Fprintf(&b, "[[locations]]\nslug = \"p%04d\"\nname = \"Property %04d\"\nphone = \"+1 303 555 %04d\"\n", i+1, i+1, (i+1)%10000)
		fmt.Fprintf(&b, "time_zone = %q\nreference_prefix = %q\n\n", zones[i%4], prefix)
		b.WriteString("[[locations.units]]\ntype = \"single\"\ncount = 3\nnightly_rate = \"89.00\"\nweekly_rate = \"540.00\"\nmin_nights = 1\n\n")
		b.WriteString("[[locations.units]]\ntype = \"double\"\ncount = 2\nnightly_rate = \"119.00\"\nmin_nights = 1\n\n")
		b.WriteString("[[locations.units]]\ntype = \"studio\"\ncount = 1\nweekly_rate = \"560.00\"\nmin_nights = 7\n\n")
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// BenchmarkLoad reads and validates a business of 3, 1,000 and 10,000
// properties: the part of serve's start that grows with the file.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		data := DemoTOML
		name := "demo"
		if n > 0 {
			data, name = manyProperties(n), fmt.Sprintf("%d", n)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c, err := Load(data)
				if err != nil {
					b.Fatal(err)
				}
				if n > 0 && len(c.Locations) != n {
					b.Fatalf("%d locations, want %d", len(c.Locations), n)
				}
			}
		})
	}
}
