use mrtr_guard::FormFields;

type Count = u32;

#[derive(FormFields)]
struct Order {
    #[form(max_length = 3)]
    quantity: Count,
}

fn main() {}
