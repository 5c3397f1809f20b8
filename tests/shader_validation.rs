//! Every WGSL file parsed and validated with naga. Pipelines compile lazily at run time, so a
//! broken shader could otherwise slip through until someone opens the code path that uses it.

use histoplay::gpu::shaders;

#[test]
fn every_shader_validates() {
    let sources = shaders::all_for_validation();
    // Shaders are grouped in folders as the code is (engine, render, video, bench).
    let mut on_disk = Vec::new();
    let mut folders = vec![std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/shaders"
    ))];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|x| x == "wgsl") {
                on_disk.push(path.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
    }
    // histogram_common.wgsl is validated as part of every compute shader; a shader built in
    // variants (convert.wgsl at two depths) is listed once per variant.
    for file in on_disk.iter().filter(|f| *f != "histogram_common.wgsl") {
        assert!(
            sources.iter().any(|(name, _)| name.starts_with(file.as_str())),
            "{file} is missing from all_for_validation()"
        );
    }
    for (name, source) in sources {
        let module =
            naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}
