//! The data-set manifest (`outfall.toml`): any text parses to a manifest or a clear error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = outfall::Manifest::parse(text, std::path::Path::new("outfall.toml"));
    }
});
