// The conversion's store while the frame is shown through a look (look.wgsl, appended): the
// signal's packed word (the histograms, scopes and marks count it), then the picture through
// the look, which is drawn. The signal's own texture is not drawn meanwhile and is left as it
// was (lut.wgsl's show_signal writes it when the look is turned off).
fn store(pos: vec2u, word: u32) {
    out_pixels[pos.y * params.width + pos.x] = word;
    look_store(pos, look_up(word), look.write_pixels != 0u);
}
