use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Booking {
    #[form(drop_if_invalid)]
    topic: String,
}

fn main() {
    let _ = mrtr_guard::Form::of::<Booking>("Book a meeting");
}
