// Lexical structure: comments, identifiers that start with keywords, literals, whitespace.
/* A block comment
   spanning lines, with // a line comment inside and a "string" and 'quote' */
/* block comments do not nest: this /* opens nothing, and the comment ends here: */

struct Counter_2 { if_count: int, return_value: int, null_seen: bool, new_name: str }

let _private: int = 0x1_0;   // hex with an underscore separator
let CamelCase9: int = 1_2_3;

fn iffy(in_x: int, for_each: int) -> int {   // parameter names start with keywords
    let matcher = in_x + for_each;
    let true_count = matcher * 2;
    let false_alarm = true_count - 1;
    let whiled = false_alarm;
    let breaking = 1;
    let continued = 2;
    let returned = whiled + breaking + continued;
    let structural = returned;
    let lets = structural;
    let fnord = lets;
    let else_ = fnord;
    return else_;
}

fn main() {
	// a tab-indented line
    let x=1;let y =2 ; let   z  =  x+y ;
    println(x,y,z);
    println("not // a comment", "not /* a comment */ either");
    println(/* inline */ 42 /* another */, 7);
    let c = new Counter_2 { if_count: 1, return_value: 2, null_seen: false, new_name: "n" };
    println(c);
    println(iffy(3, 4), _private, CamelCase9);
    let __ = 5;
    let a1b2c3 = __ * 2;
    println(__, a1b2c3);
    // literals
    println(0, 00, 007, 1_000_000, 0x0, 0xABCDEF, 0xabcdef, 0x1_0000);
    println(1.5, 1e9, 2.5e-3, 1e0, 0.5e1, 10.25e2 / 1.0, 123.0e-2);
    println(true, false, !true);
    println("", "\"", "\\", "a\tb");
    // an empty statement list, an empty block and an empty loop body
    {
    }
    let k = 0;
    while k < 3 { k += 1; }
    for i in 0..0 {}
    if k == 3 {} else {}
    println("k =", k);
}
// a comment on the last line without a newline