//! Reading the output of `strace -f -y -xx -s N -o FILE`: one system call per entry,
//! with where it started and ended in the log (a call another thread interrupted is
//! split over an `<unfinished ...>` and a `<... resumed>` line), its arguments, and
//! its result. With `-xx` every string is hex (`"\x2f\x74"`) and with `-y` every file
//! descriptor carries its path (`3<\x2f\x74\x6d\x70>`), so nothing needs unquoting.

use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    /// A file descriptor and the path strace resolved for it.
    Fd(i64, String),
    /// A string argument: the bytes strace printed, and whether it cut them short.
    Bytes(Vec<u8>, bool),
    /// Anything else, as printed (numbers, flags).
    Other(String),
}

#[derive(Debug, Clone)]
pub struct Call {
    pub name: String,
    pub args: Vec<Arg>,
    /// The result; for a call returning a descriptor, its number.
    pub ret: i64,
    /// The path of a returned descriptor (`openat`).
    pub ret_path: Option<String>,
    /// Log lines where the call was entered and where it returned.
    pub start: usize,
    pub end: usize,
}

impl Call {
    pub fn fd_path(&self, i: usize) -> Option<&str> {
        match self.args.get(i) {
            Some(Arg::Fd(_, path)) => Some(path),
            _ => None,
        }
    }
    pub fn bytes(&self, i: usize) -> Option<(&[u8], bool)> {
        match self.args.get(i) {
            Some(Arg::Bytes(bytes, cut)) => Some((bytes, *cut)),
            _ => None,
        }
    }
    pub fn number(&self, i: usize) -> Option<u64> {
        match self.args.get(i) {
            Some(Arg::Other(text)) => text.parse().ok(),
            _ => None,
        }
    }
    pub fn other(&self, i: usize) -> Option<&str> {
        match self.args.get(i) {
            Some(Arg::Other(text)) => Some(text),
            _ => None,
        }
    }
}

/// Decodes `\xHH` sequences (all `-xx` prints).
fn unhex(text: &str) -> Result<Vec<u8>, String> {
    let raw = text.as_bytes();
    let mut out = Vec::with_capacity(raw.len() / 4);
    let mut i = 0;
    while i < raw.len() {
        if raw[i] != b'\\' || raw.get(i + 1) != Some(&b'x') || i + 4 > raw.len() {
            return Err(format!("not -xx hex: {text:?}"));
        }
        let hex = std::str::from_utf8(&raw[i + 2..i + 4]).map_err(|e| e.to_string())?;
        out.push(u8::from_str_radix(hex, 16).map_err(|e| format!("{e}: {text:?}"))?);
        i += 4;
    }
    Ok(out)
}

fn parse_arg(text: &str) -> Result<Arg, String> {
    if let Some(rest) = text.strip_prefix('"') {
        let (body, cut) = match rest.strip_suffix("\"...") {
            Some(body) => (body, true),
            None => (rest.strip_suffix('"').ok_or_else(|| format!("unterminated string {text:?}"))?, false),
        };
        return Ok(Arg::Bytes(unhex(body)?, cut));
    }
    if let Some((fd, path)) = text.split_once('<') {
        if let (Ok(fd), Some(path)) = (fd.parse::<i64>(), path.strip_suffix('>')) {
            return Ok(Arg::Fd(fd, String::from_utf8_lossy(&unhex(path)?).into_owned()));
        }
    }
    Ok(Arg::Other(text.to_string()))
}

/// Parses `name(args) = ret ...`, the text of one whole call.
fn parse_call(text: &str, start: usize, end: usize) -> Result<Call, String> {
    let open = text.find('(').ok_or_else(|| format!("no '(' in {text:?}"))?;
    // strace pads between the closing parenthesis and `= result`.
    let eq = text.rfind(" = ").ok_or_else(|| format!("no result in {text:?}"))?;
    let close = text[..eq].trim_end().strip_suffix(')').ok_or_else(|| format!("no ')' in {text:?}"))?.len();
    let name = text[..open].to_string();
    let args_text = &text[open + 1..close];
    // Strings are hex and paths hex inside `<>`: a ", " only ever separates arguments.
    let args = if args_text.is_empty() { Vec::new() } else { args_text.split(", ").map(parse_arg).collect::<Result<_, _>>()? };
    let ret_text = text[eq + 3..].split_whitespace().next().unwrap_or("");
    let (ret, ret_path) = match parse_arg(ret_text)? {
        Arg::Fd(fd, path) => (fd, Some(path)),
        Arg::Other(n) => (n.parse().map_err(|_| format!("result {n:?} in {text:?}"))?, None),
        Arg::Bytes(..) => return Err(format!("a string result in {text:?}")),
    };
    Ok(Call { name, args, ret, ret_path, start, end })
}

/// Every system call in the log, in the order they returned.
pub fn parse(log: &str) -> Result<Vec<Call>, String> {
    let mut calls = Vec::new();
    let mut unfinished: HashMap<&str, (String, usize)> = HashMap::new();
    for (line_no, line) in log.lines().enumerate() {
        let (pid, rest) = line.split_once(' ').ok_or_else(|| format!("line {line_no}: {line:?}"))?;
        let rest = rest.trim_start();
        if rest.starts_with("+++") || rest.starts_with("---") {
            continue;
        }
        if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            unfinished.insert(pid, (head.to_string(), line_no));
            continue;
        }
        let (text, start) = if let Some(resumed) = rest.strip_prefix("<... ") {
            let (_, tail) = resumed.split_once(" resumed>").ok_or_else(|| format!("line {line_no}: {line:?}"))?;
            let (head, start) = unfinished.remove(pid).ok_or_else(|| format!("line {line_no}: resumed without a start"))?;
            (format!("{head}{tail}"), start)
        } else {
            (rest.to_string(), line_no)
        };
        // A call cut off by the process's exit has no result: it did not return.
        if text.ends_with("= ?") {
            continue;
        }
        calls.push(parse_call(&text, start, line_no).map_err(|e| format!("line {line_no}: {e}"))?);
    }
    Ok(calls)
}
