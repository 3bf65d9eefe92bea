fn main() {
    // Only the Node-API binding needs the linker setup napi-build provides.
    if std::env::var_os("CARGO_FEATURE_BINDING").is_some() {
        napi_build::setup();
    }
}
