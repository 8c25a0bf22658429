//! Collecting several compile errors so the user sees all of them at once.

/// Accumulates [`syn::Error`]s; [`Errors::finish`] combines them into one.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records the error of `result`, if any, and returns its value.
    pub(crate) fn check<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// `Ok` when nothing went wrong, else every recorded error.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.combined {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
