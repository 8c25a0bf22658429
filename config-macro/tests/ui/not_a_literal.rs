const CONFIG: &str = "ragforge.config.yaml";

mod tools {
    toolforge_config_macro::include_config!(CONFIG);
}

fn main() {}
