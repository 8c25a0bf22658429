mod tools {
    toolforge_config_macro::include_config!("tests/ui/config_error.yaml");
}

fn main() {}
