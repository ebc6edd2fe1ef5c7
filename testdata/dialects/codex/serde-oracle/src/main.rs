// For each line of stdin (split as Rust's str::lines splits, as codex's
// rollout loader does), print "ok" when serde_json::from_str::<Value>
// parses it and "err <message>" when it does not; a line that is only
// whitespace prints "skip" (the loader skips it before parsing).
use std::io::Read;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        println!("fatal {e}");
        return;
    }
    for line in text.lines() {
        if line.trim().is_empty() {
            println!("skip");
            continue;
        }
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(_) => println!("ok"),
            Err(e) => println!("err {e}"),
        }
    }
}
