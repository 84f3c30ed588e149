/** Props of {@link StylePicker}. */
export interface StylePickerProps<T extends string> {
  label: string;
  styles: readonly T[];
  value: T;
  onChange(style: T): void;
}

/** A row of style buttons; the chosen one is highlighted. */
export function StylePicker<T extends string>({ label, styles, value, onChange }: StylePickerProps<T>) {
  return (
    <fieldset className="picker" data-testid={`picker-${label.toLowerCase().replace(' ', '-')}`}>
      <legend className="picker-label">{label}</legend>
      <div className="style-options">
        {styles.map((style) => (
          <button key={style} type="button" className={`style-option ${style === value ? 'is-selected' : ''}`} aria-pressed={style === value} onClick={() => onChange(style)}>
            {style.toUpperCase()}
          </button>
        ))}
      </div>
    </fieldset>
  );
}
