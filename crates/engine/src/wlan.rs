//! The anchor rules of 802.11 and its capture headers (docs/isa.md §3), written
//! once for the per-packet, batch and reference evaluators: each passes its own
//! packet load, which fails where the packet ends.

use netsift_isa::{AnchorRule, Size};

/// radiotap's flags field is present (bit 1 of the first presence word, loaded
/// big-endian), another presence word follows (bit 31), a TSFT field comes first
/// (bit 0); the flags byte's bit for a padded 802.11 header.
const RT_FLAGS: u32 = 0x0200_0000;
const RT_EXT: u32 = 0x0000_0080;
const RT_TSFT: u32 = 0x0100_0000;
const RT_DATAPAD: u32 = 0x20;

/// The value of an 802.11 rule at header `h`: `Ok(None)` if an offset overflows,
/// `Err` where a load does; `Ok(Some(h))` for a rule that is not one of them.
pub(crate) fn apply<E>(
    rule: AnchorRule,
    h: u32,
    load: impl Fn(Option<u32>, Size) -> Result<u32, E>,
) -> Result<Option<u32>, E> {
    Ok(match rule {
        AnchorRule::RadiotapHdr => {
            let lo = load(h.checked_add(2), Size::B1)?;
            let hi = load(h.checked_add(3), Size::B1)?;
            h.checked_add(hi << 8 | lo)
        }
        AnchorRule::AvsHdr => h.checked_add(load(h.checked_add(4), Size::B4)?),
        AnchorRule::PrismHdr => {
            if load(Some(h), Size::B4)? & 0xffff_f000 == 0x8021_1000 {
                h.checked_add(load(h.checked_add(4), Size::B4)?)
            } else {
                h.checked_add(144)
            }
        }
        AnchorRule::WlanPayload | AnchorRule::WlanPayloadPadded => {
            let fc = load(Some(h), Size::B1)?;
            let data = fc & 0x08 != 0 && fc & 0x04 == 0;
            let qos = data && fc & 0x80 != 0;
            let Some(v) = h.checked_add(if qos { 26 } else { 24 }) else {
                return Ok(None);
            };
            if !data || rule == AnchorRule::WlanPayload {
                return Ok(Some(v));
            }
            let present = load(Some(4), Size::B4)?;
            if present & RT_FLAGS == 0 || present & RT_EXT != 0 {
                return Ok(Some(v));
            }
            let flags = load(Some(if present & RT_TSFT != 0 { 16 } else { 8 }), Size::B1)?;
            if flags & RT_DATAPAD == 0 {
                Some(v)
            } else {
                v.checked_add(3).map(|v| v & !3)
            }
        }
        _ => Some(h),
    })
}
