use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    placed: std::time::SystemTime,
}

fn main() {}
