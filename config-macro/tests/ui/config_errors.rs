//! Every mistake `include_config!` reports (a config error, a missing file, an argument that is
//! not a string literal), one module a mistake, compiled as one crate so that trybuild runs
//! rustc once for all of them.

mod config_error {
    mod tools {
        toolforge_config_macro::include_config!("tests/ui/config_error.yaml");
    }

    fn main() {}
}

mod missing_file {
    mod tools {
        toolforge_config_macro::include_config!("tests/ui/no_such_config.yaml");
    }

    fn main() {}
}

mod not_a_literal {
    const CONFIG: &str = "ragforge.config.yaml";

    mod tools {
        toolforge_config_macro::include_config!(CONFIG);
    }

    fn main() {}
}

fn main() {}
