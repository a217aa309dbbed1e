//! Lines read on a thread of their own, so that a loop can wait on them and on other work at
//! once, with deadlines: the protocol engines' standard input, an outside engine's standard
//! output. Bytes that are not UTF-8 are replaced (never an error); the line end (`\n` or
//! `\r\n`) is removed. The channel closes at the end of the input or on a read error.

use std::io::{BufRead, BufReader, Read};
use std::thread;

use crossbeam_channel::{unbounded, Receiver};

/// Starts reading `input` line by line; the lines arrive on the returned channel. A read error
/// is reported on standard error under the name `source` and ends the lines.
pub fn lines(input: impl Read + Send + 'static, source: String) -> Receiver<String> {
    let (sender, receiver) = unbounded();
    thread::spawn(move || {
        let mut reader = BufReader::new(input);
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match reader.read_until(b'\n', &mut buffer) {
                Ok(0) => break,
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buffer);
                    let line = line.trim_end_matches(['\n', '\r']).to_string();
                    if sender.send(line).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    eprintln!("{source}: {e}");
                    break;
                }
            }
        }
    });
    receiver
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_split_and_invalid_bytes_replaced() {
        let input: &'static [u8] = b"usi\r\nisready\n\xff\xfe go\nlast";
        let got: Vec<String> = lines(input, "test input".to_string()).iter().collect();
        assert_eq!(got, ["usi", "isready", "\u{fffd}\u{fffd} go", "last"]);
    }
}
