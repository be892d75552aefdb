//! A small JSON text writer for the request bodies: keys are ours (no escaping), strings are
//! escaped, commas come by themselves. Smaller in wasm than building `serde_json::Value`s.

/// JSON text being written.
#[derive(Debug, Default)]
pub struct Json(String);

impl Json {
    /// A comma, unless a value or key has just been opened.
    fn sep(&mut self) {
        if !matches!(self.0.as_bytes().last(), None | Some(b'{' | b'[' | b':')) {
            self.0.push(',');
        }
    }

    /// `"key":` (the key is plain ASCII of ours).
    pub fn key(&mut self, key: &str) -> &mut Self {
        self.sep();
        self.0.push('"');
        self.0.push_str(key);
        self.0.push_str("\":");
        self
    }

    /// `{` (a value, or an element of a list).
    pub fn obj(&mut self) -> &mut Self {
        self.sep();
        self.0.push('{');
        self
    }

    /// `[`.
    pub fn list(&mut self) -> &mut Self {
        self.sep();
        self.0.push('[');
        self
    }

    /// `}` or `]`.
    pub fn end(&mut self, close: char) -> &mut Self {
        self.0.push(close);
        self
    }

    /// A string value.
    pub fn str(&mut self, text: &str) -> &mut Self {
        self.sep();
        self.0.push('"');
        for c in text.chars() {
            match c {
                '"' => self.0.push_str("\\\""),
                '\\' => self.0.push_str("\\\\"),
                '\n' => self.0.push_str("\\n"),
                '\r' => self.0.push_str("\\r"),
                '\t' => self.0.push_str("\\t"),
                c if u32::from(c) < 0x20 => self.0.push_str(&format!("\\u{:04x}", u32::from(c))),
                c => self.0.push(c),
            }
        }
        self.0.push('"');
        self
    }

    /// JSON text as it is (a number, `true`, a schema).
    pub fn raw(&mut self, json: &str) -> &mut Self {
        self.sep();
        self.0.push_str(json);
        self
    }

    /// `"key":"value"`.
    pub fn pair(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key).str(value)
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_json() {
        let mut j = Json::default();
        j.obj().pair("a", "q\"\\\n\u{1}é").key("b").list();
        j.obj().end('}').raw("1").str("x").end(']');
        j.key("c").raw("true").end('}');
        let text = j.into_string();
        assert_eq!(text, r#"{"a":"q\"\\\n\u0001é","b":[{},1,"x"],"c":true}"#);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["a"], "q\"\\\n\u{1}é");
    }
}
