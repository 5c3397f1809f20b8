//! A small JSON reader for the tests of histoplay's JSON Lines output: enough of JSON to check
//! key order and values (objects keep their keys in order).

use std::ops::Index;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn parse(text: &str) -> Json {
        let mut reader = Reader {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = reader.value();
        reader.space();
        assert_eq!(reader.at, text.len(), "trailing text in {text}");
        value
    }

    pub fn keys(&self) -> Vec<&str> {
        match self {
            Json::Object(pairs) => pairs.iter().map(|(k, _)| k.as_str()).collect(),
            _ => panic!("not an object: {self:?}"),
        }
    }

    pub fn array(&self) -> &[Json] {
        match self {
            Json::Array(items) => items,
            _ => panic!("not an array: {self:?}"),
        }
    }

    pub fn u64(&self) -> u64 {
        match self {
            Json::Number(n) if *n >= 0.0 && n.fract() == 0.0 => *n as u64,
            _ => panic!("not a count: {self:?}"),
        }
    }

    pub fn str(&self) -> &str {
        match self {
            Json::String(s) => s,
            _ => panic!("not a string: {self:?}"),
        }
    }

    /// An array of counts.
    pub fn counts(&self) -> Vec<u64> {
        self.array().iter().map(Json::u64).collect()
    }
}

impl Index<&str> for Json {
    type Output = Json;
    fn index(&self, key: &str) -> &Json {
        match self {
            Json::Object(pairs) => {
                &pairs
                    .iter()
                    .find(|(k, _)| k == key)
                    .unwrap_or_else(|| panic!("no {key}"))
                    .1
            }
            _ => panic!("not an object: {self:?}"),
        }
    }
}

impl Index<usize> for Json {
    type Output = Json;
    fn index(&self, i: usize) -> &Json {
        &self.array()[i]
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn space(&mut self) {
        while self.at < self.bytes.len() && self.bytes[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) {
        self.space();
        assert_eq!(
            self.bytes.get(self.at),
            Some(&byte),
            "expected '{}' at {}",
            byte as char,
            self.at
        );
        self.at += 1;
    }

    fn value(&mut self) -> Json {
        self.space();
        match self.bytes[self.at] {
            b'{' => {
                self.at += 1;
                let mut pairs = Vec::new();
                self.space();
                if self.bytes[self.at] == b'}' {
                    self.at += 1;
                    return Json::Object(pairs);
                }
                loop {
                    self.space();
                    let Json::String(key) = self.value() else {
                        panic!("a key must be a string")
                    };
                    self.eat(b':');
                    pairs.push((key, self.value()));
                    self.space();
                    self.at += 1;
                    if self.bytes[self.at - 1] == b'}' {
                        return Json::Object(pairs);
                    }
                }
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                self.space();
                if self.bytes[self.at] == b']' {
                    self.at += 1;
                    return Json::Array(items);
                }
                loop {
                    items.push(self.value());
                    self.space();
                    self.at += 1;
                    if self.bytes[self.at - 1] == b']' {
                        return Json::Array(items);
                    }
                }
            }
            b'"' => {
                let start = self.at + 1;
                let end = start + self.bytes[start..].iter().position(|&b| b == b'"').unwrap();
                self.at = end + 1;
                Json::String(String::from_utf8(self.bytes[start..end].to_vec()).unwrap())
            }
            b't' | b'f' | b'n' => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| self.bytes[self.at..].starts_with(w.as_bytes()))
                    .unwrap();
                self.at += word.len();
                match word {
                    "true" => Json::Bool(true),
                    "false" => Json::Bool(false),
                    _ => Json::Null,
                }
            }
            _ => {
                let start = self.at;
                while self.at < self.bytes.len()
                    && matches!(self.bytes[self.at], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.at]).unwrap();
                Json::Number(text.parse().unwrap_or_else(|_| panic!("bad number '{text}'")))
            }
        }
    }
}
