//! Reading a stdio server's stdout one line (one JSON-RPC message) at a time, in bounded
//! memory: a line over the limit is not kept, only its size and its first and last bytes,
//! where its request id is.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// Bytes kept of each end of a line over the limit.
pub(crate) const EDGE: usize = 4096;

/// What the next read found.
#[derive(Debug)]
pub(crate) enum Line {
    /// A whole line, without its `\n` (or `\r\n`), at most the limit long.
    Whole(Vec<u8>),
    /// A line longer than the limit: its size and its first and last [`EDGE`] bytes.
    Oversized {
        /// Its size in bytes.
        size: usize,
        /// Its first bytes.
        head: Vec<u8>,
        /// Its last bytes.
        tail: Vec<u8>,
    },
    /// The stream ended, or could not be read (the error).
    End(Option<std::io::Error>),
}

/// Reads lines of at most `limit` bytes. Cancel-safe: a read interrupted mid-line resumes
/// where it stopped.
pub(crate) struct LineReader<R> {
    read: R,
    limit: usize,
    line: Vec<u8>,
    over: Option<Overflow>,
}

/// What is kept of a line over the limit while the rest of it is read and dropped.
#[derive(Debug, Default)]
struct Overflow {
    size: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Overflow {
    fn add(&mut self, bytes: &[u8]) {
        self.size += bytes.len();
        let room = EDGE.saturating_sub(self.head.len());
        self.head.extend_from_slice(&bytes[..room.min(bytes.len())]);
        let last = &bytes[bytes.len().saturating_sub(EDGE)..];
        self.tail.extend_from_slice(last);
        let excess = self.tail.len().saturating_sub(EDGE);
        self.tail.drain(..excess);
    }
}

impl<R: AsyncBufRead + Unpin> LineReader<R> {
    /// Lines of `read`, each at most `limit` bytes.
    pub(crate) fn new(read: R, limit: usize) -> Self {
        Self {
            read,
            limit,
            line: Vec::new(),
            over: None,
        }
    }

    /// The next line. A last line without a newline counts as a line.
    pub(crate) async fn next_line(&mut self) -> Line {
        loop {
            let (consumed, ended) = {
                let available = match self.read.fill_buf().await {
                    Ok(available) => available,
                    Err(error) => return Line::End(Some(error)),
                };
                if available.is_empty() {
                    if self.line.is_empty() && self.over.is_none() {
                        return Line::End(None);
                    }
                    (0, true)
                } else {
                    let newline = available.iter().position(|&b| b == b'\n');
                    let bytes = &available[..newline.unwrap_or(available.len())];
                    push(&mut self.line, &mut self.over, self.limit, bytes);
                    (
                        newline.map_or(available.len(), |at| at + 1),
                        newline.is_some(),
                    )
                }
            };
            self.read.consume(consumed);
            if ended {
                return self.finish();
            }
        }
    }

    fn finish(&mut self) -> Line {
        if let Some(over) = self.over.take() {
            return Line::Oversized {
                size: over.size,
                head: over.head,
                tail: over.tail,
            };
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Line::Whole(line)
    }
}

/// Adds `bytes` to the line being read, or to what is kept of it once it is over `limit`.
fn push(line: &mut Vec<u8>, over: &mut Option<Overflow>, limit: usize, bytes: &[u8]) {
    if let Some(over) = over.as_mut() {
        over.add(bytes);
    } else if line.len() + bytes.len() > limit {
        let mut overflow = Overflow::default();
        overflow.add(&std::mem::take(line));
        overflow.add(bytes);
        *over = Some(overflow);
    } else {
        line.extend_from_slice(bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize, capacity: usize) -> Vec<Line> {
        let read = tokio::io::BufReader::with_capacity(capacity, input);
        let mut reader = LineReader::new(read, limit);
        let mut lines = Vec::new();
        loop {
            match reader.next_line().await {
                Line::End(_) => return lines,
                line => lines.push(line),
            }
        }
    }

    fn whole(line: &Line) -> &[u8] {
        match line {
            Line::Whole(bytes) => bytes,
            other => panic!("not a whole line: {other:?}"),
        }
    }

    #[tokio::test]
    async fn lines_are_split_at_newlines_across_reads() {
        let found = lines(b"{\"a\":1}\r\n\n{\"b\":2}\nlast", 100, 3).await;
        let found: Vec<&[u8]> = found.iter().map(whole).collect();
        assert_eq!(found, [&b"{\"a\":1}"[..], b"", b"{\"b\":2}", b"last"]);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_keeps_its_size_and_ends_and_the_next_line_is_whole() {
        let mut input = b"{\"id\":7,".to_vec();
        input.extend(std::iter::repeat_n(b'x', 3 * EDGE));
        input.extend(b"\"id\":8}\nnext\n");
        let found = lines(&input, 1000, 512).await;
        let Line::Oversized { size, head, tail } = &found[0] else {
            panic!("{:?}", found[0]);
        };
        assert_eq!(*size, 8 + 3 * EDGE + 7);
        assert!(head.starts_with(b"{\"id\":7,") && head.len() == EDGE);
        assert!(tail.ends_with(b"\"id\":8}") && tail.len() == EDGE);
        assert_eq!(whole(&found[1]), b"next");
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_whole() {
        let found = lines(b"12345\n123456\n", 5, 2).await;
        assert_eq!(whole(&found[0]), b"12345");
        assert!(matches!(found[1], Line::Oversized { size: 6, .. }));
    }
}
