use mrtr_guard::FormFields;

#[derive(FormFields)]
struct Booking {
    #[form(minimum = 1, maximum = 40, default = 50)]
    attendees: Option<u32>,
}

fn main() {
    let _ = mrtr_guard::Form::of::<Booking>("Book a meeting");
}
