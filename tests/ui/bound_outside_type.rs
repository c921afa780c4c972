use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Order {
    #[form(maximum = 300)]
    quantity: u8,
    #[form(minimum = 0.5)]
    count: u32,
}

fn main() {}
