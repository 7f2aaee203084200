//! The upload path of `POST /check`: parse any bytes as GeoJSON, then check what parses
//! against the demo data set. Nothing may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn demo() -> &'static outfall::Catalog {
    static CAT: OnceLock<outfall::Catalog> = OnceLock::new();
    CAT.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/clay");
        outfall::Catalog::open(&dir).expect("demo data set")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok((features, _problems)) = outfall::load::parse_geojson(text, "upload") {
        if !features.is_empty() && features.len() <= 50 {
            let _ = outfall::screening::check_drawn(demo(), "fuzz", &features, None);
        }
    }
});
