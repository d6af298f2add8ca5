//! What reaches netsiftd from an unprivileged peer, and what its administrator
//! writes, on arbitrary bytes: a control message (`proto::decode_request`) is
//! decoded or refused with a code and a message, never a panic, and a request
//! that decodes encodes again to one that decodes the same; a policy file
//! (`auth::Policy::parse`) is read or refused with a located message.
#![no_main]

use libfuzzer_sys::fuzz_target;
use netsift_ffpf::auth::Policy;
use netsift_ffpf::proto;

fuzz_target!(|data: &[u8]| {
    if let Ok((id, req)) = proto::decode_request(data) {
        let again = proto::encode_request(id, &req);
        let (id2, req2) = proto::decode_request(&again).expect("what we encode decodes");
        assert_eq!((id, &req), (id2, &req2));
    }
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(e) = Policy::parse(text, "fuzz.toml") {
            assert!(e.to_string().starts_with("fuzz.toml"), "{e}");
        }
    }
});
