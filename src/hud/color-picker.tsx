/** Props of {@link ColorPicker}. */
export interface ColorPickerProps {
  label: string;
  colors: readonly string[];
  value: string;
  onChange(color: string): void;
}

/** A row of colour swatches; the chosen one is outlined. */
export function ColorPicker({ label, colors, value, onChange }: ColorPickerProps) {
  return (
    <fieldset className="picker" data-testid={`picker-${label.toLowerCase()}`}>
      <legend className="picker-label">{label}</legend>
      <div className="swatches">
        {colors.map((color) => (
          <button
            key={color}
            type="button"
            className={`swatch ${color.toUpperCase() === value.toUpperCase() ? 'is-selected' : ''}`}
            style={{ backgroundColor: color }}
            aria-label={`${label} ${color}`}
            aria-pressed={color.toUpperCase() === value.toUpperCase()}
            onClick={() => onChange(color)}
          />
        ))}
      </div>
    </fieldset>
  );
}
