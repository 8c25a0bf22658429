mod tools {
    toolforge_config_macro::include_config!("tests/ui/no_such_config.yaml");
}

fn main() {}
