//! Every WGSL file parsed and validated with naga. Pipelines compile lazily at run time, so a
//! broken shader could otherwise slip through until someone opens the code path that uses it.

use histoplay::gpu::shaders;

#[test]
fn every_shader_validates() {
    let sources = shaders::all_for_validation();
    let on_disk = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/shaders"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "wgsl"))
        .count();
    // histogram_common.wgsl is validated as part of every compute shader.
    assert_eq!(
        sources.len() + 1,
        on_disk,
        "a shader in shaders/ is missing from all_for_validation()"
    );
    for (name, source) in sources {
        let module =
            naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}
