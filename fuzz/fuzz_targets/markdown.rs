//! Fuzzes the streaming markdown renderer with arbitrary deltas at arbitrary widths: never a
//! panic, no row wider than the width, and every rendered row passes the terminal's output
//! audit (SGR codes of ours and sanitized text only: nothing from the input gets through).
#![no_main]

use fx_wasm::term::ansi::{audit, Allowed};
use fx_wasm::term::markdown::{MarkdownOptions, MarkdownStream};
use fx_wasm::term::style::{line_to_ansi, Palette, StyledLine};
use libfuzzer_sys::fuzz_target;

fn check(lines: &[StyledLine], width: usize) {
    for line in lines {
        assert!(
            line.width() <= width,
            "row of {} cells at width {width}: {:?}",
            line.width(),
            line.plain_text()
        );
        let ansi = line_to_ansi(line, &Palette::dark());
        if let Err(foreign) = audit(ansi.as_str(), Allowed::Row) {
            panic!("{foreign} in {:?}", ansi.as_str());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let [w, step, ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(data.get(2..).unwrap_or_default());
    let width = usize::from(*w % 120) + 4;
    let step = usize::from(*step % 16) + 1;
    let mut stream = MarkdownStream::new(MarkdownOptions::new(width));
    let chars: Vec<char> = text.chars().collect();
    for (i, chunk) in chars.chunks(step).enumerate() {
        let delta: String = chunk.iter().collect();
        stream.push(&delta);
        if i % 7 == 3 {
            check(&stream.tail(), width);
        }
    }
    check(&stream.lines(), width);
    stream.finish();
    check(stream.committed(), width);
    let narrow = (width / 2).max(4);
    stream.set_width(narrow);
    check(&stream.lines(), narrow);
});
