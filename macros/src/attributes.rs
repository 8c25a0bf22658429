//! The `#[tool(...)]` attributes on the arguments struct.

use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::{Attribute, LitBool, LitStr, Path, Token};

use crate::errors::Errors;

/// Every key `#[tool(...)]` accepts, for the did-you-mean of an unknown key.
pub(crate) const KEYS: &[&str] = &[
    "name",
    "description",
    "title",
    "capabilities",
    "keywords",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "crate",
    "definition",
];

/// What the `#[tool(...)]` attributes say (keys not given are `None` / empty).
#[derive(Default)]
pub(crate) struct ToolAttributes {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) capabilities: Vec<LitStr>,
    pub(crate) keywords: Vec<LitStr>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    pub(crate) krate: Option<Path>,
    /// `definition = path::to_fn`: the whole definition comes from that function.
    pub(crate) definition: Option<Path>,
    /// A `crate` key was written but could not be read.
    pub(crate) krate_unreadable: bool,
}

impl ToolAttributes {
    /// The keys given that `definition` replaces, with the span of each.
    pub(crate) fn definition_conflicts(&self) -> Vec<(&'static str, proc_macro2::Span)> {
        let mut conflicts = Vec::new();
        let mut literal = |key: &'static str, lit: &Option<LitStr>| {
            if let Some(lit) = lit {
                conflicts.push((key, lit.span()));
            }
        };
        literal("name", &self.name);
        literal("description", &self.description);
        literal("title", &self.title);
        if let Some(first) = self.capabilities.first() {
            conflicts.push(("capabilities", first.span()));
        }
        if let Some(first) = self.keywords.first() {
            conflicts.push(("keywords", first.span()));
        }
        let flags = [
            ("read_only", self.read_only),
            ("destructive", self.destructive),
            ("idempotent", self.idempotent),
            ("open_world", self.open_world),
        ];
        if let Some(path) = &self.definition {
            let span = syn::spanned::Spanned::span(path);
            for (key, value) in flags {
                if value.is_some() {
                    conflicts.push((key, span));
                }
            }
        }
        conflicts
    }

    /// Parses every `#[tool(...)]` attribute in `attrs`, recording each problem in `errors` and
    /// keeping what could be read.
    pub(crate) fn parse(attrs: &[Attribute], errors: &mut Errors) -> ToolAttributes {
        let mut parsed = ToolAttributes::default();
        for attr in attrs.iter().filter(|attr| attr.path().is_ident("tool")) {
            let result = attr.parse_nested_meta(|meta| parsed.parse_key(meta, errors));
            errors.check(result);
        }
        parsed
    }

    fn parse_key(&mut self, meta: ParseNestedMeta, errors: &mut Errors) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().map(ToString::to_string) else {
            return Err(meta.error(unknown_key_message(&path_text(&meta.path))));
        };
        match key.as_str() {
            "name" => set_once(&mut self.name, &meta, errors, string(&meta)?),
            "description" => set_once(&mut self.description, &meta, errors, string(&meta)?),
            "title" => set_once(&mut self.title, &meta, errors, string(&meta)?),
            "capabilities" => add_strings(&mut self.capabilities, &meta, errors, "capability"),
            "keywords" => add_strings(&mut self.keywords, &meta, errors, "keyword"),
            "read_only" => set_once(&mut self.read_only, &meta, errors, flag(&meta)?),
            "destructive" => set_once(&mut self.destructive, &meta, errors, flag(&meta)?),
            "idempotent" => set_once(&mut self.idempotent, &meta, errors, flag(&meta)?),
            "open_world" => set_once(&mut self.open_world, &meta, errors, flag(&meta)?),
            "definition" => {
                let path = meta.value()?.parse::<Path>()?;
                set_once(&mut self.definition, &meta, errors, path)
            }
            "crate" => {
                let path = meta
                    .value()
                    .and_then(|value| value.parse::<LitStr>())
                    .and_then(|text| text.parse::<Path>());
                self.krate_unreadable = path.is_err();
                set_once(&mut self.krate, &meta, errors, path?)
            }
            _ => {
                // Record the error, skip the value, and go on reading the other keys.
                errors.push(meta.error(unknown_key_message(&key)));
                skip_value(&meta)
            }
        }
    }
}

/// Reads only `#[tool(crate = "...")]`: `Some(None)` when absent, `None` when it was written
/// but is unreadable (the caller then emits no code that would need the path).
pub(crate) fn crate_override(attrs: &[Attribute]) -> Option<Option<Path>> {
    let parsed = ToolAttributes::parse(attrs, &mut Errors::default());
    if parsed.krate_unreadable {
        None
    } else {
        Some(parsed.krate)
    }
}

/// Stores a key's value; a key given twice is an error, recorded so the other keys are still
/// read.
fn set_once<T>(
    slot: &mut Option<T>,
    meta: &ParseNestedMeta,
    errors: &mut Errors,
    value: T,
) -> syn::Result<()> {
    if slot.is_some() {
        errors.push(meta.error(format!(
            "`{}` is given twice; keep one",
            path_text(&meta.path)
        )));
    } else {
        *slot = Some(value);
    }
    Ok(())
}

/// `key = "..."` (emptiness is checked by the caller, which knows what the key means).
fn string(meta: &ParseNestedMeta) -> syn::Result<LitStr> {
    meta.value()?.parse::<LitStr>()
}

/// `key`, `key = true` or `key = false`.
fn flag(meta: &ParseNestedMeta) -> syn::Result<bool> {
    if meta.input.peek(Token![=]) {
        Ok(meta.value()?.parse::<LitBool>()?.value)
    } else {
        Ok(true)
    }
}

/// `key = "one"` or `key = ["one", "two"]`; repeated keys add up. Duplicates and empty strings
/// are errors (recorded, so the other keys are still read).
fn add_strings(
    list: &mut Vec<LitStr>,
    meta: &ParseNestedMeta,
    errors: &mut Errors,
    what: &str,
) -> syn::Result<()> {
    let value = meta.value()?;
    let items: Vec<LitStr> = if value.peek(syn::token::Bracket) {
        let content;
        syn::bracketed!(content in value);
        Punctuated::<LitStr, Token![,]>::parse_terminated(&content)?
            .into_iter()
            .collect()
    } else if value.peek(LitStr) {
        vec![value.parse()?]
    } else {
        return Err(value.error(format!(
            "expected a string or a list of strings, like `{} = [\"search\", \"code\"]`",
            path_text(&meta.path)
        )));
    };
    for item in items {
        let text = item.value();
        if text.trim().is_empty() {
            errors.push(syn::Error::new(
                item.span(),
                format!("a {what} must not be empty"),
            ));
        } else if list.iter().any(|known| known.value() == text) {
            errors.push(syn::Error::new(
                item.span(),
                format!("{what} `{text}` is listed twice"),
            ));
        } else {
            list.push(item);
        }
    }
    Ok(())
}

/// Consumes `= value` or `(...)` after an unknown key.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.input.parse::<proc_macro2::Group>()?;
    }
    Ok(())
}

fn unknown_key_message(key: &str) -> String {
    let mut message = format!("unknown `tool` attribute key `{key}`");
    match did_you_mean(key) {
        Some(candidate) => message.push_str(&format!("; did you mean `{candidate}`?")),
        None => message.push_str(&format!("; expected one of: {}", KEYS.join(", "))),
    }
    message
}

/// The known key closest to `key`, if it is close enough to be a typo.
pub(crate) fn did_you_mean(key: &str) -> Option<&'static str> {
    toolforge_names::closest(key, KEYS.iter().copied())
}

fn path_text(path: &Path) -> String {
    let segments: Vec<String> = path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn parse(input: syn::DeriveInput) -> (ToolAttributes, syn::Result<()>) {
        let mut errors = Errors::default();
        let parsed = ToolAttributes::parse(&input.attrs, &mut errors);
        (parsed, errors.finish())
    }

    #[test]
    fn every_key_is_read() {
        let (parsed, result) = parse(parse_quote! {
            #[tool(name = "x", description = "d", title = "T")]
            #[tool(capabilities = ["a", "b"], capabilities = "c", keywords = "k")]
            #[tool(read_only, destructive = false, idempotent = true, open_world)]
            #[tool(crate = "::tf")]
            struct S {}
        });
        result.unwrap();
        assert_eq!(parsed.name.unwrap().value(), "x");
        assert_eq!(parsed.description.unwrap().value(), "d");
        assert_eq!(parsed.title.unwrap().value(), "T");
        let values = |list: &[LitStr]| list.iter().map(LitStr::value).collect::<Vec<_>>();
        assert_eq!(values(&parsed.capabilities), ["a", "b", "c"]);
        assert_eq!(values(&parsed.keywords), ["k"]);
        assert!(parsed.read_only.unwrap());
        assert!(!parsed.destructive.unwrap());
        assert!(parsed.idempotent.unwrap());
        assert!(parsed.open_world.unwrap());
        let krate = parsed.krate.unwrap();
        assert!(krate.leading_colon.is_some());
        assert!(krate.is_ident("tf") || path_text(&krate) == "tf");
    }

    #[test]
    fn several_errors_are_all_reported() {
        let (_, result) = parse(parse_quote! {
            #[tool(descripton = "d", name = "a")]
            #[tool(name = "b", readonly)]
            struct S {}
        });
        let messages: Vec<String> = result
            .unwrap_err()
            .into_iter()
            .map(|error| error.to_string())
            .collect();
        assert_eq!(
            messages,
            [
                "unknown `tool` attribute key `descripton`; did you mean `description`?",
                "`name` is given twice; keep one",
                "unknown `tool` attribute key `readonly`; did you mean `read_only`?",
            ]
        );
    }

    #[test]
    fn did_you_mean_ignores_unrelated_words() {
        assert_eq!(did_you_mean("keyword"), Some("keywords"));
        assert_eq!(did_you_mean("readOnly"), Some("read_only"));
        assert_eq!(did_you_mean("capability"), Some("capabilities"));
        assert_eq!(did_you_mean("frobnicate"), None);
        assert!(unknown_key_message("frobnicate").contains("expected one of: name, description"));
    }

    #[test]
    fn bad_lists_are_errors() {
        let message = |input: syn::DeriveInput| parse(input).1.unwrap_err().to_string();
        assert_eq!(
            message(parse_quote! { #[tool(capabilities = ["a", "a"])] struct S {} }),
            "capability `a` is listed twice"
        );
        assert_eq!(
            message(parse_quote! { #[tool(keywords = [""])] struct S {} }),
            "a keyword must not be empty"
        );
        assert!(
            message(parse_quote! { #[tool(keywords = 3)] struct S {} })
                .starts_with("expected a string or a list of strings")
        );
    }
}
