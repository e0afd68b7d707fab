#![no_main]
//! MessagePack (AMDGPU metadata): any input decoded as one document, the
//! whole tree written as JSON.

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;

use fwview::model::{Source, Tree};

fuzz_target!(|data: &[u8]| {
    let mut tree = Tree::build(
        Arc::new(Source::from_vec(data.to_vec())),
        "input",
        |b, parent, at: fwview::model::Span| {
            fwview::formats::msgpack::parse(b, parent, at);
            Some(fwview::model::Format::MsgPack)
        },
    );
    fwview::export::json(&mut tree, "input", &mut std::io::sink()).expect("JSON export");
});
