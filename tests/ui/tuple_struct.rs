use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order(String, u8);

fn main() {}
