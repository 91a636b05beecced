//! The tokenizer-level reader of graph text: a cursor over one line and untyped literals.

use rynamo_tensor::{DType, TensorMeta, layout};

use crate::{Error, Result};

/// A literal before it is typed by the parameter it binds to.
#[derive(Clone, Debug)]
pub(super) enum Lit {
    Ref(String),
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    DType(DType),
    List(Vec<Lit>),
    Slice(Option<i64>, Option<i64>, Option<i64>),
    Ellipsis,
}

pub(super) struct Cursor<'a> {
    pub(super) s: &'a str,
    pub(super) pos: usize,
    pub(super) line: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn err<T>(&self, msg: impl Into<String>) -> Result<T> {
        Err(Error::Parse {
            line: self.line,
            msg: format!(
                "{} (at `{}`)",
                msg.into(),
                &self.s[self.pos..].chars().take(20).collect::<String>()
            ),
        })
    }
    pub(super) fn ws(&mut self) {
        while self.s[self.pos..].starts_with([' ', '\t']) {
            self.pos += 1;
        }
    }
    pub(super) fn peek(&mut self) -> Option<char> {
        self.ws();
        self.s[self.pos..].chars().next()
    }
    pub(super) fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.pos..].starts_with(t) {
            self.pos += t.len();
            true
        } else {
            false
        }
    }
    pub(super) fn expect(&mut self, t: &str) -> Result<()> {
        if self.eat(t) {
            Ok(())
        } else {
            self.err(format!("expected `{t}`"))
        }
    }
    pub(super) fn word(&mut self) -> &'a str {
        self.ws();
        let start = self.pos;
        while let Some(c) = self.s[self.pos..].chars().next() {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
        &self.s[start..self.pos]
    }
    pub(super) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.s.len()
    }

    pub(super) fn name(&mut self) -> Result<String> {
        self.expect("%")?;
        let w = self.word();
        if w.is_empty() {
            self.err("expected a value name")
        } else {
            Ok(w.to_string())
        }
    }

    pub(super) fn int(&mut self) -> Result<i64> {
        let neg = self.eat("-");
        let w = self.word();
        match w.parse::<i64>() {
            Ok(v) => Ok(if neg { -v } else { v }),
            Err(_) => self.err("expected an integer"),
        }
    }

    pub(super) fn meta(&mut self) -> Result<TensorMeta> {
        let d = self.word();
        let Some(dtype) = DType::from_name(d) else {
            return self.err(format!("unknown dtype `{d}`"));
        };
        let shape: Vec<usize> = self
            .int_list("[", "]")?
            .into_iter()
            .map(|v| v as usize)
            .collect();
        let strides = if self.peek() == Some('{') {
            self.int_list("{", "}")?
                .into_iter()
                .map(|v| v as isize)
                .collect()
        } else {
            layout::contiguous_strides(&shape).to_vec()
        };
        Ok(TensorMeta {
            dtype,
            shape,
            strides,
        })
    }

    pub(super) fn int_list(&mut self, open: &str, close: &str) -> Result<Vec<i64>> {
        self.expect(open)?;
        let mut v = Vec::new();
        while !self.eat(close) {
            v.push(self.int()?);
            if !self.eat(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(v)
    }

    pub(super) fn opt_int_until(&mut self, stops: &[char]) -> Result<Option<i64>> {
        match self.peek() {
            Some(c) if stops.contains(&c) => Ok(None),
            _ => self.int().map(Some),
        }
    }

    pub(super) fn lit(&mut self) -> Result<Lit> {
        match self.peek() {
            Some('%') => return Ok(Lit::Ref(self.name()?)),
            Some('[') => {
                self.expect("[")?;
                let mut v = Vec::new();
                while !self.eat("]") {
                    v.push(self.lit()?);
                    if !self.eat(",") {
                        self.expect("]")?;
                        break;
                    }
                }
                return Ok(Lit::List(v));
            }
            Some('\'') => return self.string(),
            Some(':') => return self.slice(None),
            _ => {}
        }
        if self.eat("...") {
            return Ok(Lit::Ellipsis);
        }
        let save = self.pos;
        let neg = self.eat("-");
        let w = self.word();
        let lit = match w {
            "None" if !neg => Lit::None,
            "True" if !neg => Lit::Bool(true),
            "False" if !neg => Lit::Bool(false),
            "inf" => Lit::Float(if neg {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }),
            "nan" => Lit::Float(f64::NAN),
            w if w.starts_with("torch.") => match DType::from_name(w) {
                Some(d) => Lit::DType(d),
                None => return self.err(format!("unknown dtype `{w}`")),
            },
            w => {
                // Exponents like `1e-05` continue after the sign.
                let mut text = w.to_string();
                if text.ends_with('e') && (self.eat("-") || { self.eat("+") }) {
                    let sign = &self.s[self.pos - 1..self.pos];
                    text.push_str(sign);
                    text.push_str(self.word());
                }
                let text = if neg { format!("-{text}") } else { text };
                if let Ok(i) = text.parse::<i64>() {
                    Lit::Int(i)
                } else if let Ok(x) = text.parse::<f64>() {
                    Lit::Float(x)
                } else {
                    self.pos = save;
                    return self.err("expected a literal");
                }
            }
        };
        if let Lit::Int(i) = lit
            && self.peek() == Some(':')
        {
            return self.slice(Some(i));
        }
        Ok(lit)
    }

    pub(super) fn slice(&mut self, start: Option<i64>) -> Result<Lit> {
        self.expect(":")?;
        let stop = self.opt_int_until(&[':', ',', ']'])?;
        let step = if self.eat(":") {
            self.opt_int_until(&[',', ']'])?
        } else {
            None
        };
        Ok(Lit::Slice(start, stop, step))
    }

    pub(super) fn string(&mut self) -> Result<Lit> {
        self.expect("'")?;
        let mut out = String::new();
        let mut chars = self.s[self.pos..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        out.push(e);
                    }
                }
                '\'' => {
                    self.pos += i + 1;
                    return Ok(Lit::Str(out));
                }
                c => out.push(c),
            }
        }
        self.err("unterminated string")
    }
}
