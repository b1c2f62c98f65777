//! FF7's game variables as a person writes them: `BANK:ADDRESS=VALUE` (`--set`, a link's
//! `state`). FF7's banks: 1–4, 11–15 and 7 the save game's, 5 and 6 the field's own scratch
//! memory (docs/formats/field-dat.md, "Game state").

use crate::GameVariable;

/// `BANK:ADDRESS=VALUE`, decimal (or hexadecimal with 0x); a bank the game has, an
/// address below 256, a value of 16 bits (signed or not).
pub fn parse(text: &str) -> Result<GameVariable, String> {
    let expected = || {
        format!("{text:?}: expected BANK:ADDRESS=VALUE (as 2:0=5), a bank of 1 to 7 or 11 to 15, an address below 256 and a 16-bit value")
    };
    let number = |t: &str| -> Option<i64> {
        let t = t.trim();
        match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
            Some(hex) => i64::from_str_radix(hex, 16).ok(),
            None => t.parse().ok(),
        }
    };
    let (place, value) = text.split_once('=').ok_or_else(expected)?;
    let (bank, address) = place.split_once(':').ok_or_else(expected)?;
    let (bank, address, value) = (
        number(bank).ok_or_else(expected)?,
        number(address).ok_or_else(expected)?,
        number(value).ok_or_else(expected)?,
    );
    let bank_known = matches!(bank, 1..=7 | 11..=15);
    if !bank_known || !(0..256).contains(&address) || !(-32768..65536).contains(&value) {
        return Err(expected());
    }
    Ok(GameVariable {
        bank: bank as u8,
        address: address as u8,
        value: value as i32,
    })
}
/// Variables separated by commas or spaces (a link's `state`); a later one of the same
/// bank and address replaces an earlier one. At most 256.
pub fn parse_list(text: &str) -> Result<Vec<GameVariable>, String> {
    let mut out: Vec<GameVariable> = Vec::new();
    for word in text.split([',', ' ']).filter(|w| !w.is_empty()) {
        let v = parse(word)?;
        out.retain(|o| (o.bank, o.address) != (v.bank, v.address));
        out.push(v);
        if out.len() > 256 {
            return Err("more than 256 game variables".into());
        }
    }
    Ok(out)
}
/// `parse_list`'s text for `state`.
pub fn list_text(state: &[GameVariable]) -> String {
    state
        .iter()
        .map(|v| format!("{}:{}={}", v.bank, v.address, v.value))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_variable_is_bank_address_and_value() {
        assert_eq!(
            parse("2:0=5"),
            Ok(GameVariable {
                bank: 2,
                address: 0,
                value: 5
            })
        );
        assert_eq!(
            parse("0xB:0x10=-1"),
            Ok(GameVariable {
                bank: 11,
                address: 16,
                value: -1
            })
        );
        for bad in ["2:0", "0:1=1", "8:1=1", "2:256=1", "2:1=70000", "x:1=1", ""] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let list = parse_list("2:0=5, 3:1=1 2:0=7").unwrap();
        assert_eq!(list_text(&list), "3:1=1,2:0=7");
        assert_eq!(parse_list("").unwrap(), []);
        assert!(parse_list("2:0=5,oops").is_err());
    }

    #[test]
    fn a_list_is_read_as_the_game_has_its_banks_and_written_back() {
        let state = parse_list("2:0=5, 1:0x10=-3 13:255=65535,2:0=6").unwrap();
        // A later 2:0 replaces the earlier one; hexadecimal and signed values are read.
        assert_eq!(list_text(&state), "1:16=-3,13:255=65535,2:0=6");
        assert_eq!(parse_list(&list_text(&state)).unwrap(), state);
        // Banks 8–10 and 16 are not the game's; an address past 255 or a value past 16 bits
        // are not either; each error names what was written.
        for bad in [
            "8:0=1",
            "16:0=1",
            "1:256=1",
            "1:0=65536",
            "1:0=-32769",
            "1=2",
            "a:b=c",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.starts_with(&format!("{bad:?}: expected BANK:ADDRESS=VALUE")),
                "{e}"
            );
        }
        let many: Vec<String> = (0..257)
            .map(|a| format!("{}:{}=1", 1 + a / 256, a % 256))
            .collect();
        assert!(parse_list(&many.join(","))
            .unwrap_err()
            .contains("more than 256"));
    }
}
